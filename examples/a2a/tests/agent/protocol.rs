//! The binding's rules as a strict client meets them: the version header,
//! named params, validation with the param's path, extensions, media
//! types, and everyday HTTP clients.

use serde_json::{Value, json};
use typed_rpc::{Context, TransportKind};
use typed_rpc_a2a::http::app;
use typed_rpc_a2a::server::{
    AgentExecutor, BearerAuth, EventSink, InMemoryTaskStore, RequestContext, RequestHandler,
    UNAUTHENTICATED,
};
use typed_rpc_a2a::types::*;

use crate::support::*;

fn send_body(message: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}})
        .to_string()
}

fn hello() -> Value {
    json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]})
}

/// The `param` of a `-32602` reply's `ErrorInfo`.
fn invalid_param(reply: &Value) -> &str {
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let info = &reply["error"]["data"][0];
    assert_eq!(info["reason"], "INVALID_PARAMS", "{reply}");
    info["metadata"]["param"]
        .as_str()
        .expect("the param's path")
}

#[tokio::test]
async fn a_request_without_a2a_version_speaks_0_3_and_is_refused_unless_lenient() {
    let strict = start().await;
    let reply = call(strict, "", &send_body(hello())).await;
    assert_eq!(reply["error"]["code"], -32009, "{reply}");
    let info = &reply["error"]["data"][0];
    assert_eq!(info["reason"], "VERSION_NOT_SUPPORTED");
    assert_eq!(info["metadata"]["version"], "0.3");
    assert_eq!(info["metadata"]["supported"], "1.0");
    // An empty header is no version either; a patch number does not count.
    let empty = call(strict, "a2a-version: \r\n", &send_body(hello())).await;
    assert_eq!(empty["error"]["code"], -32009, "{empty}");
    let patch = call(strict, "a2a-version: 1.0.2\r\n", &send_body(hello())).await;
    assert!(patch["result"]["message"].is_object(), "{patch}");

    let lenient = start_configured(None, |handler| handler.lenient_version(true)).await;
    let served = call(lenient, "", &send_body(hello())).await;
    assert!(served["result"]["message"].is_object(), "{served}");
    let other = call(lenient, "a2a-version: 0.3\r\n", &send_body(hello())).await;
    assert_eq!(
        other["error"]["code"], -32009,
        "lenient only about a missing header"
    );
}

#[tokio::test]
async fn positional_params_are_refused_with_a_reason() {
    let addr = start().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": [hello()]});
    let reply = call(addr, V1, &body.to_string()).await;
    assert_eq!(invalid_param(&reply), "params");
    let reason = reply["error"]["data"][0]["metadata"]["reason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("by name"), "{reply}");
}

#[tokio::test]
async fn a_message_without_id_parts_or_the_user_s_role_is_refused_naming_the_member() {
    let addr = start().await;
    let cases = [
        (
            json!({"messageId": "", "role": "ROLE_USER", "parts": [{"text": "hi"}]}),
            "message.messageId",
        ),
        (
            json!({"messageId": "m", "role": "ROLE_USER", "parts": []}),
            "message.parts",
        ),
        (
            json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}),
            "message.role",
        ),
    ];
    for (message, param) in cases {
        let reply = call(addr, V1, &send_body(message)).await;
        assert_eq!(invalid_param(&reply), param);
    }
    let agent = client(addr).await;
    assert_eq!(
        agent
            .list_tasks(ListTasksRequest::default())
            .await
            .unwrap()
            .total_size,
        0,
        "no refused message made a task"
    );
}

#[tokio::test]
async fn page_size_and_history_length_out_of_range_are_refused() {
    let addr = start().await;
    let list = |params: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": params}).to_string()
    };
    for page_size in [0, 101, -5] {
        let reply = call(addr, V1, &list(json!({ "pageSize": page_size }))).await;
        assert_eq!(invalid_param(&reply), "pageSize");
    }
    for page_size in [1, 100] {
        let reply = call(addr, V1, &list(json!({ "pageSize": page_size }))).await;
        assert_eq!(reply["result"]["pageSize"], page_size, "{reply}");
    }
    let reply = call(addr, V1, &list(json!({"historyLength": -1}))).await;
    assert_eq!(invalid_param(&reply), "historyLength");
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
        "params": {"id": "any", "historyLength": -1}});
    assert_eq!(
        invalid_param(&call(addr, V1, &get.to_string()).await),
        "historyLength"
    );
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": hello(), "configuration": {"historyLength": -2}}});
    assert_eq!(
        invalid_param(&call(addr, V1, &send.to_string()).await),
        "configuration.historyLength"
    );
}

#[tokio::test]
async fn media_types_the_agent_does_not_take_or_give_are_content_type_not_supported() {
    let addr = start().await;
    let image = json!({"messageId": "m-img", "role": "ROLE_USER",
        "parts": [{"raw": "iVBORw0KGgo=", "mediaType": "image/png"}]});
    let reply = call(addr, V1, &send_body(image)).await;
    assert_eq!(reply["error"]["code"], -32005, "{reply}");
    assert_eq!(
        reply["error"]["data"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    let with_words = json!({"messageId": "m-both", "role": "ROLE_USER",
        "parts": [{"text": "upper look"}, {"raw": "iVBORw0KGgo=", "mediaType": "image/png"}]});
    let served = call(addr, V1, &send_body(with_words)).await;
    assert_eq!(
        served["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{served}"
    );

    let wants = |modes: Value, id: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
            "message": {"messageId": id, "role": "ROLE_USER", "parts": [{"text": "upper x"}]},
            "configuration": {"acceptedOutputModes": modes}}})
        .to_string()
    };
    let images_only = call(addr, V1, &wants(json!(["image/png"]), "m-out-1")).await;
    assert_eq!(images_only["error"]["code"], -32005, "{images_only}");
    let any_text = call(addr, V1, &wants(json!(["text/*"]), "m-out-2")).await;
    assert!(any_text["result"]["task"].is_object(), "{any_text}");
}

/// Replies with the extensions in force for its request.
struct ExtensionEcho;

impl AgentExecutor for ExtensionEcho {
    async fn execute(&self, request: RequestContext, events: EventSink) {
        let _ = events.reply(request.extensions.join(" ")).await;
    }
}

const TRACING: &str = "https://example.com/ext/tracing/v1";
const BILLING: &str = "https://example.com/ext/billing/v1";

#[tokio::test]
async fn extensions_are_on_the_card_reach_the_agent_and_a_required_one_is_enforced() {
    let addr = serve_app(|mut card| {
        card.capabilities.extensions = vec![
            AgentExtension {
                uri: TRACING.into(),
                description: Some("spans for each turn".into()),
                required: false,
                params: None,
            },
            AgentExtension {
                uri: BILLING.into(),
                description: Some("who pays".into()),
                required: true,
                params: Some(serde_json::Map::from_iter([(
                    "currency".into(),
                    "EUR".into(),
                )])),
            },
        ];
        let handler = RequestHandler::new(ExtensionEcho, InMemoryTaskStore::new(), card);
        app(handler, None).unwrap()
    })
    .await;
    let card = fetch_card(addr).await;
    let uris: Vec<(&str, bool)> = card
        .capabilities
        .extensions
        .iter()
        .map(|e| (e.uri.as_str(), e.required))
        .collect();
    assert_eq!(uris, [(TRACING, false), (BILLING, true)]);

    let without = call(addr, V1, &send_body(hello())).await;
    assert_eq!(without["error"]["code"], -32008, "{without}");
    let info = &without["error"]["data"][0];
    assert_eq!(info["reason"], "EXTENSION_SUPPORT_REQUIRED");
    assert_eq!(info["metadata"]["extension"], BILLING);

    // Named in any order, across header lines; one the card lacks is ignored.
    let headers = format!(
        "{V1}a2a-extensions: https://example.com/ext/unknown/v9, {BILLING}\r\na2a-extensions: {TRACING}\r\n"
    );
    let with = call(addr, &headers, &send_body(hello())).await;
    let text = &with["result"]["message"]["parts"][0]["text"];
    assert_eq!(text, &json!(format!("{TRACING} {BILLING}")), "{with}");
}

#[tokio::test]
async fn the_auth_layer_names_the_caller_once_even_without_the_http_gate() {
    // The handler's router alone, as a user mounting it elsewhere has it:
    // the layer, not the HTTP check, authenticates each call.
    let auth = BearerAuth::default().token("alice-token", "alice");
    let card = typed_rpc_a2a::text_agent::card("http://127.0.0.1:9/a2a");
    let router = text_handler(card).with_auth(auth).router().unwrap();
    let request = |token: Option<&str>| {
        let mut headers = typed_rpc::http::HeaderMap::new();
        headers.insert("a2a-version", "1.0".parse().unwrap());
        if let Some(token) = token {
            headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
        Context::new(TransportKind::Http).with_headers(headers)
    };
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}"#;
    let refused = router.handle_with(list, &request(None)).await.unwrap();
    let refused: Value = serde_json::from_str(&refused).unwrap();
    assert_eq!(refused["error"]["code"], UNAUTHENTICATED, "{refused}");
    let wrong = router
        .handle_with(list, &request(Some("bob")))
        .await
        .unwrap();
    assert!(wrong.contains(&UNAUTHENTICATED.to_string()), "{wrong}");
    let served = router
        .handle_with(list, &request(Some("alice-token")))
        .await
        .unwrap();
    assert!(served.contains("\"totalSize\":0"), "{served}");
}

// ---------------------------------------------------------------------------
// What issue 28's framework items give the agent: `Accept` negotiation
// (branch `firstday-server`, still to land) and absent params.

const STREAM_HELLO: &str = r#"{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{"message":{"messageId":"s-1","role":"ROLE_USER","parts":[{"text":"upper everyday clients"}]}}}"#;

/// The `data:` payloads of an event stream's body.
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

#[tokio::test]
async fn a_stream_answers_curl_s_accept_and_a_request_without_accept() {
    let addr = start().await;
    for accept in [
        "accept: */*\r\n",
        "",
        "accept: application/json, text/event-stream\r\n",
    ] {
        let request = post(addr, &format!("{V1}{accept}"), STREAM_HELLO);
        let (status, head, body) = http(addr, &request).await;
        assert_eq!(status, 200, "{accept:?}: {head}");
        assert!(
            head.contains("content-type: text/event-stream"),
            "{accept:?}: {head}"
        );
        let events = events(&body);
        assert!(
            events[0]["result"]["task"].is_object(),
            "{accept:?}: {body}"
        );
        // The task's last state: in a status update, or in the task itself
        // when the agent finished before the stream began.
        let last = &events[events.len() - 1]["result"];
        let state = match last.get("statusUpdate") {
            Some(update) => &update["status"]["state"],
            None => &last["task"]["status"]["state"],
        };
        assert_eq!(state, "TASK_STATE_COMPLETED", "{accept:?}: {body}");
    }
}

#[tokio::test]
async fn get_extended_agent_card_and_list_tasks_take_absent_params() {
    let addr = start_configured(None, |handler| {
        let extended = handler.card().clone();
        handler.with_extended_card(extended)
    })
    .await;
    // The specification's own example, with no `params` member.
    let card = call(
        addr,
        V1,
        r#"{"jsonrpc":"2.0","id":6,"method":"GetExtendedAgentCard"}"#,
    )
    .await;
    assert_eq!(card["result"]["name"], "text agent", "{card}");
    let list = call(addr, V1, r#"{"jsonrpc":"2.0","id":7,"method":"ListTasks"}"#).await;
    assert_eq!(list["result"]["nextPageToken"], "", "{list}");
    assert_eq!(list["result"]["pageSize"], 50, "{list}");
}
