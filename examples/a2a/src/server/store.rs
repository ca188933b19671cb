//! Where tasks are kept: the [`TaskStore`] trait the handler reads and
//! writes through, so durable and shared stores fit without touching the
//! agent's side.

use std::future::Future;

use time::OffsetDateTime;

use crate::types::{Task, TaskState};

/// Keeps tasks, each with its owner: the name of the caller that created
/// it, `""` when the server does not authenticate callers. A task is seen
/// only by its owner. `save` replaces the task of the same id and marks it as
/// the latest updated; `list` pages through them, the latest updated first.
pub trait TaskStore: Send + Sync + 'static {
    /// The task of that id, when `owner` owns it.
    fn load(
        &self,
        id: &str,
        owner: &str,
    ) -> impl Future<Output = Result<Option<Task>, StoreError>> + Send;

    /// Stores the task as it now stands; `owner` is the one it was created with.
    fn save(&self, task: Task, owner: &str) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// One page of the tasks that match `query`.
    fn list(&self, query: &TaskQuery) -> impl Future<Output = Result<TaskPage, StoreError>> + Send;
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
    /// Only the tasks whose status timestamp is later.
    pub status_after: Option<OffsetDateTime>,
    /// At most this many.
    pub page_size: usize,
    /// The store's token of where the page before ended.
    pub page_token: Option<String>,
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
    /// The store failed (connection, disk, ...).
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::InvalidPageToken => f.write_str("invalid page token"),
            StoreError::Backend(err) => write!(f, "task store failed: {err}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The status timestamp of `task`, when it has a readable one.
pub fn status_time(task: &Task) -> Option<OffsetDateTime> {
    let stamp = task.status.timestamp.as_deref()?;
    OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339).ok()
}

/// `task` matches the filters of `query`.
pub fn matches(query: &TaskQuery, task: &Task) -> bool {
    query
        .context_id
        .as_ref()
        .is_none_or(|c| *c == task.context_id)
        && query.state.is_none_or(|s| s == task.status.state)
        && query
            .status_after
            .is_none_or(|after| status_time(task).is_some_and(|t| t > after))
}
