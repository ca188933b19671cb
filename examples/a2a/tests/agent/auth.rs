//! Bearer authentication, the version header and batches, at the HTTP level.

use typed_rpc::{CallError, ClientError};
use typed_rpc_a2a::A2aError;
use typed_rpc_a2a::server::BearerAuth;
use typed_rpc_a2a::types::*;

use crate::support::*;

const HELLO: &str = r#"{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}}}"#;

#[tokio::test]
async fn without_the_token_a_call_is_refused_401_before_dispatch() {
    let addr = start_with_token().await;
    for headers in [
        "",
        "authorization: Bearer wrong\r\n",
        "authorization: Basic dDBrZW4=\r\n",
    ] {
        let (status, head, _) = http(addr, &post(addr, headers, HELLO)).await;
        assert_eq!(status, 401, "{headers}");
        assert!(head.contains("www-authenticate: bearer"), "{head}");
    }
    let refused = client(addr).await.send_message(send(user("hello"))).await;
    let status = refused.err().and_then(|e| match ClientError::from(e) {
        ClientError::Http(http) => Some(http.status()),
        _ => None,
    });
    assert_eq!(status, Some(401));
}

#[tokio::test]
async fn with_the_token_a_call_is_served_and_the_card_stays_public() {
    let addr = start_with_token().await;
    let card = fetch_card(addr).await;
    assert!(card.security_schemes.contains_key("bearer"));
    assert_eq!(card.security_requirements.len(), 1);
    let agent = client_with(addr, Some(TOKEN)).await;
    let reply = agent.send_message(send(user("hello"))).await.unwrap();
    assert!(matches!(reply, SendMessageResponse::Message(_)));
}

#[tokio::test]
async fn a_version_other_than_1_0_is_version_not_supported() {
    let addr = start().await;
    let (status, _, body) = http(addr, &post(addr, "a2a-version: 0.3\r\n", HELLO)).await;
    assert_eq!(status, 200);
    let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["error"]["code"], -32009);
    assert_eq!(reply["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
    assert_eq!(reply["id"], 7);
    let (_, _, served) = http(addr, &post(addr, "a2a-version: 1.0\r\n", HELLO)).await;
    assert!(served.contains("hello, I am the text agent"), "{served}");
}

#[tokio::test]
async fn a_batch_is_refused_with_invalid_request() {
    let addr = start().await;
    let (status, _, body) = http(addr, &post(addr, "", &format!("[{HELLO}]"))).await;
    assert_eq!(status, 200);
    let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["id"].is_null());
}

#[tokio::test]
async fn snake_case_params_are_read() {
    let addr = start().await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"page_size":1,"include_artifacts":true,"unknown_member":0}}"#;
    let (_, _, reply) = http(addr, &post(addr, "a2a-version: 1.0\r\n", body)).await;
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["result"]["pageSize"], 1, "{reply}");
}

/// Answers with the name of its caller.
struct WhoAmI;

impl typed_rpc_a2a::server::AgentExecutor for WhoAmI {
    async fn execute(
        &self,
        request: typed_rpc_a2a::server::RequestContext,
        events: typed_rpc_a2a::server::EventSink,
    ) {
        let name = request.caller.map_or("nobody".to_owned(), |c| c.name);
        let _ = events.reply(name).await;
    }
}

#[tokio::test]
async fn the_executor_sees_who_called() {
    use typed_rpc_a2a::server::{BearerAuth, InMemoryTaskStore, RequestHandler};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let card = typed_rpc_a2a::text_agent::card(&format!("http://{addr}/a2a"));
    let auth = BearerAuth::default()
        .token("alice-token", "alice")
        .token("bob-token", "bob");
    let handler = RequestHandler::new(WhoAmI, InMemoryTaskStore::new(), card);
    let app = typed_rpc_a2a::http::app(handler, Some(auth)).unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    for (token, name) in [("alice-token", "alice"), ("bob-token", "bob")] {
        let agent = client_with(addr, Some(token)).await;
        let reply = agent.send_message(send(user("who am I?"))).await.unwrap();
        let SendMessageResponse::Message(message) = reply else {
            panic!("{reply:?}")
        };
        assert_eq!(message.first_text(), Some(name));
    }
}

#[tokio::test]
async fn a_task_is_seen_only_by_the_caller_that_created_it() {
    let auth = BearerAuth::default()
        .token("alice-token", "alice")
        .token("bob-token", "bob");
    let addr = start_configured(Some(auth), |handler| handler).await;
    let alice = client_with(addr, Some("alice-token")).await;
    let bob = client_with(addr, Some("bob-token")).await;
    let mut request = send(user("slow 20"));
    request.configuration = Some(SendMessageConfiguration {
        return_immediately: true,
        ..Default::default()
    });
    let SendMessageResponse::Task(task) = alice.send_message(request).await.unwrap() else {
        panic!("a task");
    };
    let get = |id: &str| GetTaskRequest {
        id: id.into(),
        history_length: None,
    };
    let not_found = |result: Result<Task, CallError<A2aError>>| {
        matches!(result, Err(CallError::App(A2aError::TaskNotFound(_))))
    };
    assert!(not_found(bob.get_task(get(&task.id)).await));
    let cancel = CancelTaskRequest {
        id: task.id.clone(),
        metadata: None,
    };
    assert!(not_found(bob.cancel_task(cancel.clone()).await));
    let subscribe = bob
        .subscribe_to_task(SubscribeToTaskRequest {
            id: task.id.clone(),
        })
        .await;
    assert!(
        matches!(subscribe, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "the typed error of the stream's call: {:?}",
        subscribe.err()
    );
    let bobs = bob.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert_eq!(bobs.total_size, 0);
    // A message from bob continuing alice's task is refused the same way.
    let mut intrusion = user("upper mine now");
    intrusion.task_id = Some(task.id.clone());
    let continued = bob.send_message(send(intrusion)).await;
    assert!(
        matches!(continued, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "{continued:?}"
    );

    assert_eq!(alice.get_task(get(&task.id)).await.unwrap().id, task.id);
    let alices = alice.list_tasks(ListTasksRequest::default()).await.unwrap();
    assert_eq!(alices.total_size, 1);
    let canceled = alice.cancel_task(cancel).await.unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
}

#[tokio::test]
async fn the_extended_card_is_served_to_an_authenticated_caller() {
    let auth = BearerAuth::default().token(TOKEN, "tester");
    let addr = start_configured(Some(auth), |handler| {
        let mut extended = handler.card().clone();
        extended.description = "for callers with a token".into();
        handler.with_extended_card(extended)
    })
    .await;
    let card = fetch_card(addr).await;
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    assert_ne!(card.description, "for callers with a token");
    let agent = client_with(addr, Some(TOKEN)).await;
    let extended = agent
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await
        .unwrap();
    assert_eq!(extended.description, "for callers with a token");
    assert_eq!(extended.capabilities, card.capabilities);
    let anonymous = client(addr).await;
    let refused = anonymous
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await;
    let status = refused.err().and_then(|e| match ClientError::from(e) {
        ClientError::Http(http) => Some(http.status()),
        _ => None,
    });
    assert_eq!(status, Some(401));
}

#[tokio::test]
async fn without_an_extended_card_the_method_is_unsupported_and_without_auth_all_get_it() {
    let addr = start().await;
    assert_eq!(
        fetch_card(addr).await.capabilities.extended_agent_card,
        Some(false)
    );
    let none = client(addr)
        .await
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await;
    assert!(
        matches!(none, Err(CallError::App(A2aError::UnsupportedOperation(_)))),
        "{none:?}"
    );
    // An agent that authenticates no one serves it to every caller, as the
    // reference SDK does.
    let open = start_configured(None, |handler| {
        let mut extended = handler.card().clone();
        extended.description = "for everyone here".into();
        handler.with_extended_card(extended)
    })
    .await;
    let card = client(open)
        .await
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await
        .unwrap();
    assert_eq!(card.description, "for everyone here");
}
