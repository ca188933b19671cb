//! Push notification configurations: where a client wants a task's updates POSTed.

use serde::{Deserialize, Serialize};

/// A webhook for one task's updates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// The configuration's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The task.
    #[serde(default, alias = "task_id", skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The webhook.
    pub url: String,
    /// A token the webhook checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the server authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

/// Credentials for a webhook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuthenticationInfo {
    /// The HTTP authentication scheme (`Bearer`).
    pub scheme: String,
    /// The credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}
