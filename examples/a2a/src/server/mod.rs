//! The serving side: an agent author writes an [`AgentExecutor`]; the
//! [`RequestHandler`] does the protocol around it, appending each task's
//! events to a [`TaskStore`].

mod apply;
mod auth;
mod dedup;
mod executor;
mod follow;
mod handler;
mod limits;
mod live;
mod memory_store;
mod modes;
mod notifier;
mod outage;
mod protocol;
mod push;
mod push_sender;
mod push_store;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
mod store;
#[cfg(test)]
mod store_conformance;
mod turn;
mod validate;

pub use auth::{BearerAuth, Caller, UNAUTHENTICATED};
pub use dedup::{DEFAULT_MAX_AGE, DEFAULT_MAX_MESSAGES};
pub use executor::{AgentExecutor, EventSink, RequestContext, TurnEnded};
pub use handler::RequestHandler;
pub use limits::{DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_TASK_BYTES, TaskLimits};
pub use memory_store::InMemoryTaskStore;
pub use protocol::{ActiveExtensions, EXTENSIONS_HEADER, VERSION_HEADER};
pub use push::{MAX_CONFIGS_PER_TASK, PushSettings};
pub use push_sender::TOKEN_HEADER;
pub use push_store::{InMemoryPushConfigStore, PendingPush, PushConfigStore};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use sql::{Backend, SCHEMA_VERSION, SqlOptions, SqlPushConfigStore, SqlStore};
pub use store::{
    Claim, Notice, Seq, Snapshot, StoreError, StoredEvent, TaskEvent, TaskPage, TaskQuery,
    TaskStore, TaskView, matches, status_time,
};

/// A fresh id for a task, a context or a message: a random UUID, as the
/// reference SDKs make them.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Now, ISO-8601 in UTC with a `Z`.
pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("the current UTC time formats as RFC 3339")
}
