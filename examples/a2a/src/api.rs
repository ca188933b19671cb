//! The A2A 1.0 JSON-RPC binding as an `#[rpc]` trait: the server implements
//! it ([`crate::server::RequestHandler`] does), and the generated
//! [`A2aClient`] is the library's A2A client.

use futures_util::Stream;
use typed_rpc::{Context, rpc};

use crate::error::A2aError;
use crate::types::*;

/// The methods of an A2A agent. Unknown params members are ignored, as
/// proto JSON asks; the client sends params by name.
#[rpc(allow_unknown_params, param_style = "named")]
pub trait A2a {
    /// Hands the agent a message: answered with a task when it ends or waits
    /// for input (at once with `returnImmediately`), or with a message.
    /// Marked idempotent: a retry carries the same `messageId`, and the
    /// server answers it from the turn the first copy started.
    #[method(name = "SendMessage", idempotent)]
    async fn send_message(
        &self,
        #[context] cx: &Context,
        #[params] request: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2aError>;

    /// As `SendMessage`, answered with every event of the task as it
    /// happens: the task first, its terminal or interrupted status last.
    /// The client gets the refusal of the call, and an error ending the
    /// stream, as the typed [`A2aError`] (`CallError::App`).
    #[method(name = "SendStreamingMessage", stream)]
    async fn send_streaming_message(
        &self,
        #[context] cx: &Context,
        #[params] request: SendMessageRequest,
    ) -> Result<impl Stream<Item = Result<StreamResponse, A2aError>> + Send + 'static, A2aError>;

    /// The task, with at most `historyLength` history messages.
    #[method(name = "GetTask")]
    async fn get_task(
        &self,
        #[context] cx: &Context,
        #[params] request: GetTaskRequest,
    ) -> Result<Task, A2aError>;

    /// The tasks, the latest updated first, a page at a time.
    #[method(name = "ListTasks")]
    async fn list_tasks(
        &self,
        #[context] cx: &Context,
        #[params] request: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2aError>;

    /// Cancels a task that has not ended; answers it as it stands then.
    #[method(name = "CancelTask")]
    async fn cancel_task(
        &self,
        #[context] cx: &Context,
        #[params] request: CancelTaskRequest,
    ) -> Result<Task, A2aError>;

    /// Joins a running task's stream: the task as it stands, then its events.
    #[method(name = "SubscribeToTask", stream)]
    async fn subscribe_to_task(
        &self,
        #[context] cx: &Context,
        #[params] request: SubscribeToTaskRequest,
    ) -> Result<impl Stream<Item = Result<StreamResponse, A2aError>> + Send + 'static, A2aError>;

    /// Registers a webhook for a task's updates.
    #[method(name = "CreateTaskPushNotificationConfig")]
    async fn create_task_push_notification_config(
        &self,
        #[context] cx: &Context,
        #[params] config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError>;

    /// One webhook of a task.
    #[method(name = "GetTaskPushNotificationConfig")]
    async fn get_task_push_notification_config(
        &self,
        #[context] cx: &Context,
        #[params] request: TaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2aError>;

    /// The webhooks of a task.
    #[method(name = "ListTaskPushNotificationConfigs")]
    async fn list_task_push_notification_configs(
        &self,
        #[context] cx: &Context,
        #[params] request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError>;

    /// Removes a webhook of a task.
    #[method(name = "DeleteTaskPushNotificationConfig")]
    async fn delete_task_push_notification_config(
        &self,
        #[context] cx: &Context,
        #[params] request: TaskPushNotificationConfigRequest,
    ) -> Result<serde_json::Value, A2aError>;

    /// The card an authenticated caller may see.
    #[method(name = "GetExtendedAgentCard")]
    async fn get_extended_agent_card(
        &self,
        #[context] cx: &Context,
        #[params] request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2aError>;
}
