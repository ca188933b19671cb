//! What an agent author writes: an [`AgentExecutor`], which publishes what
//! it does through an [`EventSink`].

use std::future::Future;

use tokio::sync::mpsc;

use super::Caller;
use crate::types::{Artifact, Message, Part, Role, Task, TaskState};

/// An agent. The request handler calls `execute` once per turn: for a new
/// message, and again when a message continues a task that waits for input.
pub trait AgentExecutor: Send + Sync + 'static {
    /// Does the work of one turn, publishing through `events`. A turn ends
    /// when the agent publishes a terminal or interrupted status, or replies
    /// with a message; returning before that fails the task.
    fn execute(
        &self,
        request: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = ()> + Send;

    /// Called on `CancelTask` of a task this agent is working on, before the
    /// task is marked canceled and its running turn is stopped; a place to
    /// release what the work holds.
    fn cancel(&self, task: &Task) -> impl Future<Output = ()> + Send {
        let _ = task;
        async {}
    }
}

/// What one turn works on.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// The message that started or continues the task.
    pub message: Message,
    /// The task's id (new, or the continued task's).
    pub task_id: String,
    /// The conversation's id (the message's, or a new one).
    pub context_id: String,
    /// The task as it stood before the message, when the message continues one.
    pub task: Option<Task>,
    /// Who sent the request, when the server authenticates callers.
    pub caller: Option<Caller>,
    /// The extensions in force for the request: those it names in
    /// `A2A-Extensions` that the agent's card declares.
    pub extensions: Vec<String>,
}

/// What an agent publishes.
#[derive(Clone, Debug)]
pub(crate) enum AgentEvent {
    Reply(Message),
    Status(TaskState, Option<Message>),
    Artifact {
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    },
}

/// The turn has ended (completed, canceled, or replied): nothing more is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnEnded;

impl std::fmt::Display for TurnEnded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the turn has ended")
    }
}

impl std::error::Error for TurnEnded {}

/// Where an agent publishes its status updates, artifacts and replies.
/// Bounded: a publisher waits while the handler stores what came before.
#[derive(Clone, Debug)]
pub struct EventSink {
    events: mpsc::Sender<AgentEvent>,
    task_id: String,
    context_id: String,
}

impl EventSink {
    pub(crate) fn new(
        events: mpsc::Sender<AgentEvent>,
        task_id: String,
        context_id: String,
    ) -> Self {
        EventSink {
            events,
            task_id,
            context_id,
        }
    }

    /// Answers with a message instead of a task; only as a turn's first event.
    pub async fn reply(&self, text: impl Into<String>) -> Result<(), TurnEnded> {
        let mut message = Message::text(Role::Agent, crate::server::new_id(), text);
        message.context_id = Some(self.context_id.clone());
        self.send(AgentEvent::Reply(message)).await
    }

    /// Moves the task to `state`, with an agent message of `text` when given.
    pub async fn status(&self, state: TaskState, text: Option<&str>) -> Result<(), TurnEnded> {
        let message = text.map(|text| self.agent_message(text));
        self.send(AgentEvent::Status(state, message)).await
    }

    /// Publishes an artifact, or a chunk of one (`append` after the first).
    pub async fn artifact(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), TurnEnded> {
        self.send(AgentEvent::Artifact {
            artifact,
            append,
            last_chunk,
        })
        .await
    }

    /// A text artifact chunk: `id` and `name` name it, `text` is this chunk.
    pub async fn text_chunk(
        &self,
        id: &str,
        name: &str,
        text: &str,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), TurnEnded> {
        let artifact = Artifact {
            artifact_id: id.into(),
            name: Some(name.into()),
            description: None,
            parts: vec![Part::text(text)],
            metadata: None,
            extensions: Vec::new(),
        };
        self.artifact(artifact, append, last_chunk).await
    }

    /// A message from the agent in this task.
    pub fn agent_message(&self, text: &str) -> Message {
        let mut message = Message::text(Role::Agent, crate::server::new_id(), text);
        message.task_id = Some(self.task_id.clone());
        message.context_id = Some(self.context_id.clone());
        message
    }

    async fn send(&self, event: AgentEvent) -> Result<(), TurnEnded> {
        self.events.send(event).await.map_err(|_| TurnEnded)
    }
}
