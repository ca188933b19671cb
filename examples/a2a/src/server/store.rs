//! Where tasks are kept: the [`TaskStore`] trait, built around "append an
//! event; read a task", so that what an event costs is the size of the
//! event, never the size of the task, in memory and in a database alike.

use std::future::Future;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::error::A2aError;

use crate::types::{
    Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent,
};

/// The number of an event in its task's log: 1 for the task's creation,
/// then 2, 3, ... in the order the events were appended.
pub type Seq = u64;

/// One change to a task: what the handler appends to the store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskEvent {
    /// The task as it starts (its first message in `history`): event 1.
    Created(Task),
    /// A message continuing the task (the user's answer to a question),
    /// added to its history. Subscribers do not see it as an event of its own.
    Message(Message),
    /// A new status; its message, when it has one, joins the history.
    Status(TaskStatusUpdateEvent),
    /// An artifact, or a chunk of one: with `append`, its parts extend the
    /// stored artifact of the same id (a text part continuing the last
    /// text part, so chunks of text become one part); without, it replaces
    /// that artifact or adds a new one.
    Artifact(TaskArtifactUpdateEvent),
}

impl TaskEvent {
    /// What a subscriber sees of the event: `None` for a user's message.
    pub fn into_stream(self) -> Option<StreamResponse> {
        match self {
            TaskEvent::Created(task) => Some(StreamResponse::Task(task)),
            TaskEvent::Message(_) => None,
            TaskEvent::Status(update) => Some(StreamResponse::StatusUpdate(update)),
            TaskEvent::Artifact(update) => Some(StreamResponse::ArtifactUpdate(update)),
        }
    }
}

/// An event as its task's log holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredEvent {
    /// Its number in the task's log.
    pub seq: Seq,
    /// The event.
    pub event: TaskEvent,
}

/// A task as read, with the number of the latest event it reflects: a
/// subscriber that starts from it catches up with the events after `seq`.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The task, as [`TaskView`] asked for it.
    pub task: Task,
    /// The latest event applied to it.
    pub seq: Seq,
}

/// How much of a task a read returns: a store leaves out what is not
/// asked for instead of copying it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskView {
    /// At most this many of the latest history messages (`Some(0)`: no
    /// `history` member); all of them when `None`.
    pub history_length: Option<usize>,
    /// Leave the artifacts out (no `artifacts` member).
    pub without_artifacts: bool,
}

/// Keeps tasks, each with its owner (the name of the caller that created
/// it, `""` when the server does not authenticate callers) and the log of
/// its events.
///
/// Every change is an event: [`create`](TaskStore::create) stores a new
/// task as its event 1, [`append`](TaskStore::append) adds the next one
/// and applies it to the task. The cost of an append is the size of the
/// event: an implementation never copies or rewrites the whole task for
/// one (an artifact chunk appends to the stored artifact). A durable store
/// makes each append one transaction that records the event under its
/// sequence number and updates the task, so that no reader ever sees an
/// event half applied, and [`events_after`](TaskStore::events_after) lets a
/// subscriber that fell behind, or reconnected elsewhere, catch up from
/// the log without gaps or repeats.
///
/// A task is seen only by its owner; `list` pages through the tasks, the
/// latest updated first.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores the new task `task`, owned by `owner`, as its event 1.
    fn create(
        &self,
        task: &Task,
        owner: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Appends `event` to the log of the task `task_id` and applies it to
    /// the task, as one step; the task becomes the latest updated. Returns
    /// the event's number. [`StoreError::NotFound`] when there is no such task.
    fn append(
        &self,
        task_id: &str,
        event: &TaskEvent,
    ) -> impl Future<Output = Result<Seq, StoreError>> + Send;

    /// The task `id` as `view` asks for it, when `owner` owns it.
    fn load(
        &self,
        id: &str,
        owner: &str,
        view: TaskView,
    ) -> impl Future<Output = Result<Option<Snapshot>, StoreError>> + Send;

    /// At most `limit` events of the task `task_id` numbered after `after`,
    /// oldest first. [`StoreError::NotFound`] when there is no such task.
    fn events_after(
        &self,
        task_id: &str,
        after: Seq,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<StoredEvent>, StoreError>> + Send;

    /// One page of the tasks that match `query`, each as `query.view` asks.
    fn list(&self, query: &TaskQuery) -> impl Future<Output = Result<TaskPage, StoreError>> + Send;

    /// Claims the message `message_id` of `owner` for the turn of the task
    /// `task_id`, unless a turn claimed it before, within the store's
    /// de-duplication window: then [`Claim::Retry`] says which. A store
    /// that replicas share answers for all of them, so a retry that lands
    /// on another replica starts no second run. The default claims every
    /// message: one process remembers its messages itself.
    fn claim_message(
        &self,
        owner: &str,
        message_id: &str,
        task_id: &str,
    ) -> impl Future<Output = Result<Claim, StoreError>> + Send {
        let _ = (owner, message_id, task_id);
        async { Ok(Claim::First) }
    }

    /// Records that the turn of the message `message_id` of `owner`
    /// answered with `reply` instead of a task, for the retries
    /// [`claim_message`](TaskStore::claim_message) turns away.
    fn record_reply(
        &self,
        owner: &str,
        message_id: &str,
        reply: &Message,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let _ = (owner, message_id, reply);
        async { Ok(()) }
    }

    /// News of events appended by any process sharing the store (another
    /// replica's included), when the store can tell: `None` for a store
    /// only this process writes.
    fn notices(&self) -> Option<tokio::sync::broadcast::Receiver<Notice>> {
        None
    }
}

/// What [`TaskStore::claim_message`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// The message is new: its turn is the caller's to run.
    First,
    /// A retry: the message's first copy started the turn of `task_id`,
    /// which answered with `reply` if it answered with a message.
    Retry {
        /// The task the first copy's turn works on.
        task_id: String,
        /// The turn's answer, when it was a message rather than a task.
        reply: Option<Box<Message>>,
    },
}

/// News from a shared store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The task `task_id` has its events up to `seq` in the log.
    Appended {
        /// The task.
        task_id: String,
        /// Its latest event.
        seq: Seq,
    },
    /// News may have been missed (the store's connection was lost): every
    /// follower reads the log for what it has not seen.
    Resync,
}

/// Which tasks `list` returns.
#[derive(Clone, Debug, Default)]
pub struct TaskQuery {
    /// Only the tasks of this owner (`""`: those created without authentication).
    pub owner: String,
    /// Only the tasks of this conversation.
    pub context_id: Option<String>,
    /// Only the tasks in this state.
    pub state: Option<TaskState>,
    /// Only the tasks whose status timestamp is this time or later.
    pub status_after: Option<OffsetDateTime>,
    /// At most this many.
    pub page_size: usize,
    /// The store's token of where the page before ended.
    pub page_token: Option<String>,
    /// How much of each task to return.
    pub view: TaskView,
}

/// A page of tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskPage {
    /// The tasks, the latest updated first.
    pub tasks: Vec<Task>,
    /// Where the next page starts; `None` on the last page.
    pub next_page_token: Option<String>,
    /// How many tasks match the query over all pages.
    pub total_size: usize,
}

/// A store could not do what it was asked.
#[derive(Debug)]
pub enum StoreError {
    /// The page token is not one this store gave out.
    InvalidPageToken,
    /// There is no task of that id to append to or read the log of.
    NotFound,
    /// The task has ended (another process may have ended it): it takes no
    /// more events.
    Ended,
    /// The store cannot be reached now (its database restarts, its pool is
    /// exhausted); the same call may succeed in a moment.
    Unavailable(Box<dyn std::error::Error + Send + Sync>),
    /// The store failed (connection, disk, ...).
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::InvalidPageToken => f.write_str("invalid page token"),
            StoreError::NotFound => f.write_str("no such task in the store"),
            StoreError::Ended => f.write_str("the task has ended and takes no more events"),
            StoreError::Unavailable(err) => {
                write!(f, "task store unavailable, retry in a moment: {err}")
            }
            StoreError::Backend(err) => write!(f, "task store failed: {err}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for A2aError {
    /// What a caller gets when the store fails it: `-32602` for a page
    /// token the store did not give out, `-32603` with the reason
    /// `UNAVAILABLE` (retryable) when the store cannot be reached, `-32603`
    /// for anything else.
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::InvalidPageToken => {
                A2aError::invalid_params("pageToken", "not a token this server gave out")
            }
            err @ StoreError::Unavailable(_) => A2aError::unavailable(&err.to_string()),
            err => A2aError::internal(&err.to_string()),
        }
    }
}

/// The status timestamp of `task`, when it has a readable one.
pub fn status_time(task: &Task) -> Option<OffsetDateTime> {
    let stamp = task.status.timestamp.as_deref()?;
    OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339).ok()
}

/// `task` matches the filters of `query` (not its owner, which stores keep beside the task).
pub fn matches(query: &TaskQuery, task: &Task) -> bool {
    query
        .context_id
        .as_ref()
        .is_none_or(|c| *c == task.context_id)
        && query.state.is_none_or(|s| s == task.status.state)
        && query
            .status_after
            .is_none_or(|after| status_time(task).is_some_and(|t| t >= after))
}
