//! Push notifications: webhooks on loopback (axum) receiving a task's
//! updates, through failures, a webhook that never answers, and deletion.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use typed_rpc::CallError;
use typed_rpc_a2a::A2aError;
use typed_rpc_a2a::server::{InMemoryPushConfigStore, PushSettings, TOKEN_HEADER};
use typed_rpc_a2a::types::*;

use crate::support::*;

/// How long a test waits for an update it expects.
const PATIENCE: Duration = Duration::from_secs(10);

/// One POST a webhook received.
pub struct Received {
    pub headers: HeaderMap,
    pub update: StreamResponse,
}

/// What a webhook does with a POST.
#[derive(Clone, Copy)]
pub enum Behaviour {
    /// Answers 200.
    Accept,
    /// Answers 503 to its first `n` POSTs, then 200.
    FailFirst(u32),
    /// Never answers.
    Hang,
}

struct Hook {
    behaviour: Behaviour,
    posts: AtomicU32,
    received: mpsc::UnboundedSender<Received>,
}

/// A webhook on loopback: its URL and what it accepted, in order.
async fn webhook(behaviour: Behaviour) -> (String, mpsc::UnboundedReceiver<Received>) {
    let (app, accepted) = hook_app(behaviour);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), accepted)
}

/// The app of a webhook at `/hook`, and what it accepted, in order.
pub fn hook_app(behaviour: Behaviour) -> (axum::Router, mpsc::UnboundedReceiver<Received>) {
    let (received, accepted) = mpsc::unbounded_channel();
    let hook = Arc::new(Hook {
        behaviour,
        posts: AtomicU32::new(0),
        received,
    });
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(hook);
    (app, accepted)
}

async fn receive(State(hook): State<Arc<Hook>>, headers: HeaderMap, body: String) -> StatusCode {
    let post = hook.posts.fetch_add(1, Ordering::SeqCst) + 1;
    match hook.behaviour {
        Behaviour::Hang => std::future::pending().await,
        Behaviour::FailFirst(n) if post <= n => return StatusCode::SERVICE_UNAVAILABLE,
        _ => {}
    }
    let update = serde_json::from_str(&body).expect("a StreamResponse");
    let _ = hook.received.send(Received { headers, update });
    StatusCode::OK
}

/// A text agent pushing with `settings`.
pub async fn pushing_agent(settings: PushSettings) -> SocketAddr {
    start_configured(None, |handler| {
        handler.with_push_notifications(InMemoryPushConfigStore::new(), settings)
    })
    .await
}

pub fn config(url: &str, token: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        id: None,
        task_id: None,
        url: url.into(),
        token: Some(token.into()),
        authentication: Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: Some(format!("{token}-credentials")),
        }),
    }
}

/// `SendMessage` params pushing to `webhook`, answered at once when `immediately`.
pub fn pushed(
    text: &str,
    webhook: TaskPushNotificationConfig,
    immediately: bool,
) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            task_push_notification_config: Some(webhook),
            return_immediately: immediately,
            ..Default::default()
        }),
        ..send(user(text))
    }
}

/// The updates a webhook receives up to and with the task's terminal status.
pub async fn until_terminal(received: &mut mpsc::UnboundedReceiver<Received>) -> Vec<Received> {
    let mut all = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        while let Some(post) = received.recv().await {
            let last = post.update.ends_task();
            all.push(post);
            if last {
                break;
            }
        }
    })
    .await
    .expect("the webhook gets the terminal status");
    all
}

/// A short name of each update: `task`, a status's state, or `chunk`.
pub fn shape(updates: &[Received]) -> Vec<String> {
    updates
        .iter()
        .map(|post| match &post.update {
            StreamResponse::Task(_) => "task".to_owned(),
            StreamResponse::StatusUpdate(update) => format!("{:?}", update.status.state),
            StreamResponse::ArtifactUpdate(_) => "chunk".to_owned(),
            StreamResponse::Message(_) => "message".to_owned(),
        })
        .collect()
}

/// The text of the artifact chunks among `updates`, in the order received.
pub fn chunks(updates: &[Received]) -> String {
    updates
        .iter()
        .filter_map(|post| match &post.update {
            StreamResponse::ArtifactUpdate(update) => Some(chunk_text(update)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_webhook_gets_every_update_in_order_with_its_token() {
    let addr = pushing_agent(PushSettings::default()).await;
    let card = fetch_card(addr).await;
    assert_eq!(card.capabilities.push_notifications, Some(true));
    let (url, mut received) = webhook(Behaviour::Accept).await;
    let agent = client(addr).await;
    let request = pushed("upper pushed to a hook", config(&url, "tok"), false);
    let done = task(agent.send_message(request).await.unwrap());
    let updates = until_terminal(&mut received).await;
    assert_eq!(
        shape(&updates),
        ["task", "Working", "chunk", "chunk", "Completed"]
    );
    assert_eq!(chunks(&updates), "PUSHED TO A HOOK");
    for post in &updates {
        assert_eq!(post.headers[TOKEN_HEADER], "tok");
        assert_eq!(post.headers["authorization"], "Bearer tok-credentials");
        assert_eq!(post.headers["content-type"], "application/a2a+json");
    }
    let StreamResponse::Task(first) = &updates[0].update else {
        unreachable!()
    };
    assert_eq!(first.id, done.id);
    let configs = agent
        .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
            task_id: done.id.clone(),
            page_size: None,
            page_token: None,
        })
        .await
        .unwrap();
    assert_eq!(configs.configs.len(), 1);
    assert_eq!(configs.configs[0].url, url);
    assert_eq!(
        configs.configs[0].task_id.as_deref(),
        Some(done.id.as_str())
    );
}

#[tokio::test]
async fn a_webhook_failing_its_first_attempts_gets_the_updates_after_retries() {
    let settings = PushSettings::default().backoff(Duration::from_millis(20));
    let addr = pushing_agent(settings).await;
    let (url, mut received) = webhook(Behaviour::FailFirst(3)).await;
    let agent = client(addr).await;
    agent
        .send_message(pushed("upper retried in order", config(&url, "tok"), false))
        .await
        .unwrap();
    let updates = until_terminal(&mut received).await;
    assert_eq!(
        shape(&updates),
        ["task", "Working", "chunk", "chunk", "Completed"]
    );
    assert_eq!(chunks(&updates), "RETRIED IN ORDER");
}

#[tokio::test]
async fn a_webhook_that_never_answers_delays_neither_the_task_nor_other_tasks() {
    let addr = pushing_agent(PushSettings::default().queue(4)).await;
    let (dead, _never) = webhook(Behaviour::Hang).await;
    let (alive, mut received) = webhook(Behaviour::Accept).await;
    let agent = client(addr).await;
    let started = Instant::now();
    let stuck = task(
        agent
            .send_message(pushed("upper to a dead hook", config(&dead, "a"), false))
            .await
            .unwrap(),
    );
    assert_eq!(stuck.status.state, TaskState::Completed);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "SendMessage waited for the webhook: {:?}",
        started.elapsed()
    );
    let other = Instant::now();
    agent
        .send_message(pushed("upper to a live hook", config(&alive, "b"), false))
        .await
        .unwrap();
    let updates = until_terminal(&mut received).await;
    assert_eq!(
        shape(&updates).last().map(String::as_str),
        Some("Completed")
    );
    assert!(
        other.elapsed() < Duration::from_secs(2),
        "the other task's webhook waited: {:?}",
        other.elapsed()
    );
}

#[tokio::test]
async fn a_deleted_config_gets_no_more_updates() {
    let addr = pushing_agent(PushSettings::default()).await;
    let (url, mut received) = webhook(Behaviour::Accept).await;
    let agent = client(addr).await;
    let working = task(
        agent
            .send_message(SendMessageRequest {
                configuration: Some(SendMessageConfiguration {
                    return_immediately: true,
                    ..Default::default()
                }),
                ..send(user("slow 8"))
            })
            .await
            .unwrap(),
    );
    let made = agent
        .create_task_push_notification_config(TaskPushNotificationConfig {
            task_id: Some(working.id.clone()),
            ..config(&url, "tok")
        })
        .await
        .unwrap();
    let id = made.id.clone().expect("the server gives the config an id");
    let which = TaskPushNotificationConfigRequest {
        task_id: working.id.clone(),
        id: id.clone(),
    };
    let got = agent
        .get_task_push_notification_config(which.clone())
        .await
        .unwrap();
    assert_eq!(got, made);
    // Two step updates arrive, then the config goes.
    for _ in 0..2 {
        let post = tokio::time::timeout(PATIENCE, received.recv()).await;
        assert!(matches!(post, Ok(Some(_))), "an update before the deletion");
    }
    agent
        .delete_task_push_notification_config(which.clone())
        .await
        .unwrap();
    agent
        .delete_task_push_notification_config(which.clone())
        .await
        .expect("deleting again is no error");
    let seen_before_delete = received.len();
    let finished = agent
        .subscribe_to_task(SubscribeToTaskRequest {
            id: working.id.clone(),
        })
        .await
        .unwrap();
    let events = collect(finished).await;
    assert!(events.last().is_some_and(StreamResponse::ends_task));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        received.len(),
        seen_before_delete,
        "updates after the deletion"
    );
    let gone = agent.get_task_push_notification_config(which).await;
    assert!(
        matches!(gone, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "{gone:?}"
    );
}

#[tokio::test]
async fn configs_are_refused_without_push_for_bad_urls_and_unknown_tasks() {
    let plain = client(start().await).await;
    assert_eq!(
        fetch_card(start().await)
            .await
            .capabilities
            .push_notifications,
        Some(false)
    );
    let create = |task_id: &str, url: &str| TaskPushNotificationConfig {
        task_id: Some(task_id.into()),
        ..config(url, "tok")
    };
    let unsupported = plain
        .create_task_push_notification_config(create("t", "http://127.0.0.1:9/hook"))
        .await;
    assert!(
        matches!(
            unsupported,
            Err(CallError::App(A2aError::PushNotificationNotSupported(_)))
        ),
        "{unsupported:?}"
    );
    let inline = plain
        .send_message(pushed(
            "upper x",
            config("http://127.0.0.1:9/hook", "t"),
            false,
        ))
        .await;
    assert!(
        matches!(
            inline,
            Err(CallError::App(A2aError::PushNotificationNotSupported(_)))
        ),
        "{inline:?}"
    );

    let addr = start_configured(None, |handler| {
        let settings = PushSettings::default().allow_hosts(["127.0.0.1"]);
        handler.with_push_notifications(InMemoryPushConfigStore::new(), settings)
    })
    .await;
    let agent = client(addr).await;
    let done = task(agent.send_message(send(user("upper y"))).await.unwrap());
    for url in [
        "ftp://127.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "http://169.254.169.254/latest/meta-data",
        "hook",
    ] {
        let refused = agent
            .create_task_push_notification_config(create(&done.id, url))
            .await;
        assert!(
            matches!(refused, Err(CallError::App(A2aError::InvalidParams(_)))),
            "{url}: {refused:?}"
        );
    }
    let unknown = agent
        .create_task_push_notification_config(create("no-such-task", "http://127.0.0.1:9/h"))
        .await;
    assert!(
        matches!(unknown, Err(CallError::App(A2aError::TaskNotFound(_)))),
        "{unknown:?}"
    );
}
