//! What a task reports as it runs, and the replies that carry it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Artifact, Message, Task, TaskStatus};

/// A task moved to a new status.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// The task.
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Its conversation.
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// A task produced an artifact, or a chunk of one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Its conversation.
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// The artifact, or this chunk of it.
    pub artifact: Artifact,
    /// The parts extend the artifact of the same id instead of replacing it.
    #[serde(default)]
    pub append: bool,
    /// The last chunk of the artifact.
    #[serde(default, alias = "last_chunk")]
    pub last_chunk: bool,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// The reply to `SendMessage`: a task, or a message when the agent answered at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SendMessageResponse {
    /// The task the message started or continued.
    Task(Task),
    /// The agent's direct answer; no task was made.
    Message(Message),
}

/// One event of a stream (`SendStreamingMessage`, `SubscribeToTask`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamResponse {
    /// The task as it stands; a task stream starts with it.
    Task(Task),
    /// The agent's direct answer, the only event of its stream.
    Message(Message),
    /// A status change.
    #[serde(alias = "status_update")]
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact or a chunk of one.
    #[serde(alias = "artifact_update")]
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamResponse {
    /// The event closes a `SendStreamingMessage` stream: a message, or a
    /// terminal or interrupted status (the turn is over).
    pub fn ends_stream(&self) -> bool {
        match self {
            StreamResponse::Message(_) => true,
            StreamResponse::Task(task) => task.status.state.ends_turn(),
            StreamResponse::StatusUpdate(update) => update.status.state.ends_turn(),
            StreamResponse::ArtifactUpdate(_) => false,
        }
    }

    /// The event closes a `SubscribeToTask` stream: a terminal status (the
    /// task is over; a subscriber stays through input-required turns).
    pub fn ends_task(&self) -> bool {
        match self {
            StreamResponse::Message(_) => true,
            StreamResponse::Task(task) => task.status.state.is_terminal(),
            StreamResponse::StatusUpdate(update) => update.status.state.is_terminal(),
            StreamResponse::ArtifactUpdate(_) => false,
        }
    }
}
