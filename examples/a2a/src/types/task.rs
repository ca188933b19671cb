//! Tasks: the ticket for work that takes time, its states and its artifacts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Message;

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskState {
    /// Not set; never a task's real state.
    #[serde(rename = "TASK_STATE_UNSPECIFIED")]
    Unspecified,
    /// Received, not started.
    #[serde(rename = "TASK_STATE_SUBMITTED")]
    Submitted,
    /// Being worked on.
    #[serde(rename = "TASK_STATE_WORKING")]
    Working,
    /// Done (terminal).
    #[serde(rename = "TASK_STATE_COMPLETED")]
    Completed,
    /// Ended in failure (terminal).
    #[serde(rename = "TASK_STATE_FAILED")]
    Failed,
    /// Cancelled (terminal).
    #[serde(rename = "TASK_STATE_CANCELED")]
    Canceled,
    /// Waits for the user's answer (interrupted).
    #[serde(rename = "TASK_STATE_INPUT_REQUIRED")]
    InputRequired,
    /// Refused by the agent (terminal).
    #[serde(rename = "TASK_STATE_REJECTED")]
    Rejected,
    /// Waits for the user's authentication (interrupted).
    #[serde(rename = "TASK_STATE_AUTH_REQUIRED")]
    AuthRequired,
}

impl TaskState {
    /// Completed, failed, canceled or rejected: nothing more happens to the task.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Input-required or auth-required: the task waits for the user.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// Terminal or interrupted: where a blocking `SendMessage` answers and a stream ends.
    pub fn ends_turn(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }
}

/// A task's state, with the agent's word on it and when it was reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// What the agent says about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the state was reached, ISO-8601 UTC (`2026-12-01T22:41:46.5Z`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A unit of work the agent keeps track of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id, chosen by the server.
    pub id: String,
    /// The conversation the task belongs to.
    #[serde(default, alias = "context_id")]
    pub context_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// What it produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// The messages of the task, oldest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Something a task produced: a document, an image, a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Identifies the artifact within its task; chunks of one artifact share it.
    #[serde(alias = "artifact_id")]
    pub artifact_id: String,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its content.
    pub parts: Vec<super::Part>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// URIs of the extensions the artifact uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_their_proto_names() {
        assert_eq!(
            serde_json::to_value(TaskState::InputRequired).unwrap(),
            "TASK_STATE_INPUT_REQUIRED"
        );
        assert!(TaskState::Canceled.is_terminal() && !TaskState::Working.ends_turn());
    }
}
