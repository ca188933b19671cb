//! The params and results of the JSON-RPC methods.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Message, Task, TaskPushNotificationConfig, TaskState};

/// `SendMessage` and `SendStreamingMessage` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    /// The message.
    pub message: Message,
    /// How to answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl SendMessageRequest {
    /// A request carrying `message` with the default configuration.
    pub fn new(message: Message) -> Self {
        SendMessageRequest {
            message,
            configuration: None,
            metadata: None,
        }
    }
}

/// How `SendMessage` answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageConfiguration {
    /// Media types the client takes.
    #[serde(
        default,
        alias = "accepted_output_modes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub accepted_output_modes: Vec<String>,
    /// Where to push the task's updates.
    #[serde(
        default,
        alias = "task_push_notification_config",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// At most this many history messages in the returned task (not below 0).
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Answer with the task at once instead of when it ends or waits for input.
    #[serde(default, alias = "return_immediately")]
    pub return_immediately: bool,
}

/// `GetTask` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    /// The task.
    pub id: String,
    /// At most this many history messages (not below 0).
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
}

/// `CancelTask` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CancelTaskRequest {
    /// The task.
    pub id: String,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// `SubscribeToTask` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscribeToTaskRequest {
    /// The task.
    pub id: String,
}

/// `ListTasks` params: filters and a page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequest {
    /// Only the tasks of this conversation.
    #[serde(default, alias = "context_id", skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Only the tasks in this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskState>,
    /// At most this many tasks: 1 to 100, 50 when not given.
    #[serde(default, alias = "page_size", skip_serializing_if = "Option::is_none")]
    pub page_size: Option<i32>,
    /// The `nextPageToken` of the page before.
    #[serde(default, alias = "page_token", skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
    /// At most this many history messages per task (not below 0).
    #[serde(
        default,
        alias = "history_length",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Only the tasks whose status changed after this time (ISO-8601).
    #[serde(
        default,
        alias = "status_timestamp_after",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_timestamp_after: Option<String>,
    /// Include each task's artifacts (default: left out).
    #[serde(
        default,
        alias = "include_artifacts",
        skip_serializing_if = "Option::is_none"
    )]
    pub include_artifacts: Option<bool>,
}

/// `ListTasks` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResponse {
    /// This page, the latest updated first.
    pub tasks: Vec<Task>,
    /// The token of the next page; `""` on the last one.
    #[serde(alias = "next_page_token")]
    pub next_page_token: String,
    /// The page size used.
    #[serde(alias = "page_size")]
    pub page_size: u32,
    /// How many tasks match the filters, over all pages.
    #[serde(alias = "total_size")]
    pub total_size: u32,
}

/// `GetTaskPushNotificationConfig` and `DeleteTaskPushNotificationConfig` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfigRequest {
    /// The task.
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// The configuration.
    pub id: String,
}

/// `ListTaskPushNotificationConfigs` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsRequest {
    /// The task.
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// At most this many configurations.
    #[serde(default, alias = "page_size", skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    /// The `nextPageToken` of the page before.
    #[serde(default, alias = "page_token", skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
}

/// `ListTaskPushNotificationConfigs` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsResponse {
    /// The configurations.
    pub configs: Vec<TaskPushNotificationConfig>,
    /// The token of the next page; `""` on the last one.
    #[serde(default, alias = "next_page_token")]
    pub next_page_token: String,
}

/// `GetExtendedAgentCard` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetExtendedAgentCardRequest {
    /// The tenant, when the endpoint serves several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}
