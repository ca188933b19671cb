//! The notifications a server sends its client, taken by the client's
//! router and handed to whoever listens: progress, log messages, list
//! changes, resource updates.

use serde_json::Value;
use tokio::sync::broadcast;
use typed_rpc::rpc;

/// How many notifications a slow listener may fall behind.
const BACKLOG: usize = 1024;

/// A notification from the server.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerNotification {
    /// Its method (`notifications/progress`, `notifications/message`, ...).
    pub method: String,
    /// Its params.
    pub params: Value,
}

/// The notifications an MCP server sends.
#[rpc(allow_unknown_params)]
pub trait ServerNotifications {
    /// How far a request has got.
    #[notification(name = "notifications/progress")]
    async fn progress(&self, #[params] params: Value);

    /// A log message.
    #[notification(name = "notifications/message")]
    async fn message(&self, #[params] params: Value);

    /// The tools changed.
    #[notification(name = "notifications/tools/list_changed")]
    async fn tools_changed(&self, #[params] params: Option<Value>);

    /// The prompts changed.
    #[notification(name = "notifications/prompts/list_changed")]
    async fn prompts_changed(&self, #[params] params: Option<Value>);

    /// The resources changed.
    #[notification(name = "notifications/resources/list_changed")]
    async fn resources_changed(&self, #[params] params: Option<Value>);

    /// A subscribed resource changed.
    #[notification(name = "notifications/resources/updated")]
    async fn resource_updated(&self, #[params] params: Value);

    /// A `subscriptions/listen` began (2026-07-28).
    #[notification(name = "notifications/subscriptions/acknowledged")]
    async fn acknowledged(&self, #[params] params: Value);
}

/// Hands each notification to the listeners.
#[derive(Clone, Debug)]
pub(crate) struct Relay(broadcast::Sender<ServerNotification>);

impl Relay {
    pub(crate) fn new() -> Self {
        Relay(broadcast::channel(BACKLOG).0)
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerNotification> {
        self.0.subscribe()
    }

    fn send(&self, method: &str, params: Option<Value>) {
        let _ = self.0.send(ServerNotification {
            method: method.to_owned(),
            params: params.unwrap_or(Value::Null),
        });
    }
}

impl ServerNotifications for Relay {
    async fn progress(&self, params: Value) {
        self.send("notifications/progress", Some(params));
    }

    async fn message(&self, params: Value) {
        self.send("notifications/message", Some(params));
    }

    async fn tools_changed(&self, params: Option<Value>) {
        self.send("notifications/tools/list_changed", params);
    }

    async fn prompts_changed(&self, params: Option<Value>) {
        self.send("notifications/prompts/list_changed", params);
    }

    async fn resources_changed(&self, params: Option<Value>) {
        self.send("notifications/resources/list_changed", params);
    }

    async fn resource_updated(&self, params: Value) {
        self.send("notifications/resources/updated", Some(params));
    }

    async fn acknowledged(&self, params: Value) {
        self.send("notifications/subscriptions/acknowledged", Some(params));
    }
}
