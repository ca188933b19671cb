//! Appending through a store that is briefly unreachable (a database
//! restarting): the append is tried again with backoff, and an append whose
//! commit may have happened before the connection broke is looked for in
//! the log first, so an event is stored once, never lost and never twice.
//! A turn whose store stays away past its patience is abandoned, and its
//! task failed once the store is back ([`fail_when_back`]).

use std::sync::Arc;
use std::time::Duration;

use super::live::LiveTask;
use super::store::{Seq, StoreError, TaskEvent, TaskStore, TaskView};
use crate::types::{Message, Role, Task, TaskState};

/// The first wait before trying again, doubled up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// How long an event waits for the store to come back before the turn
/// gives up on it, unless the handler says otherwise.
pub(crate) const OUTAGE_PATIENCE: Duration = Duration::from_secs(30);

/// Appends `event` to the task `task_id`, whose latest event this process
/// knows of is `known`, waiting out an unavailable store for up to
/// `patience`. Meanwhile the agent's events queue up behind this one (the
/// agent waits on its bounded sink).
pub(crate) async fn append_surely(
    store: &impl TaskStore,
    task_id: &str,
    known: Seq,
    event: &TaskEvent,
    patience: Duration,
) -> Result<Seq, StoreError> {
    let deadline = tokio::time::Instant::now() + patience;
    let mut backoff = MIN_BACKOFF;
    let mut uncertain = false;
    loop {
        if uncertain {
            // The last try may have committed before its connection broke.
            match store.events_after(task_id, known, 64).await {
                Ok(log) => {
                    if let Some(stored) = log.into_iter().find(|stored| stored.event == *event) {
                        return Ok(stored.seq);
                    }
                }
                Err(StoreError::Unavailable(err)) => {
                    wait(&mut backoff, deadline, err).await?;
                    continue;
                }
                Err(err) => return Err(err),
            }
        }
        match store.append(task_id, event).await {
            Err(StoreError::Unavailable(err)) => {
                uncertain = true;
                wait(&mut backoff, deadline, err).await?;
            }
            done => return done,
        }
    }
}

/// Waits the backoff out, doubled for next time; past `deadline`, the
/// store's error.
async fn wait(
    backoff: &mut Duration,
    deadline: tokio::time::Instant,
    err: Box<dyn std::error::Error + Send + Sync>,
) -> Result<(), StoreError> {
    if tokio::time::Instant::now() + *backoff > deadline {
        return Err(StoreError::Unavailable(err));
    }
    tokio::time::sleep(*backoff).await;
    *backoff = (*backoff * 2).min(MAX_BACKOFF);
    Ok(())
}

/// Creates `task` for `owner`, waiting out an unavailable store as
/// [`append_surely`] does; a try whose commit happened before its
/// connection broke is found by reading the task back.
pub(crate) async fn create_surely(
    store: &impl TaskStore,
    task: &Task,
    owner: &str,
    patience: Duration,
) -> Result<(), StoreError> {
    let deadline = tokio::time::Instant::now() + patience;
    let mut backoff = MIN_BACKOFF;
    let mut uncertain = false;
    loop {
        match store.create(task, owner).await {
            Err(StoreError::Unavailable(err)) => {
                uncertain = true;
                wait(&mut backoff, deadline, err).await?;
            }
            Err(err) if uncertain => {
                let bare = TaskView {
                    history_length: Some(0),
                    without_artifacts: true,
                };
                return match store.load(&task.id, owner, bare).await {
                    Ok(Some(_)) => Ok(()),
                    _ => Err(err),
                };
            }
            done => return done,
        }
    }
}

/// Fails the task of a turn abandoned because its store stayed away past
/// its patience, once the store is back: the task would otherwise stay
/// `working` with no process running it (this one is alive, so no lease
/// sweep ends it). Tries every [`MAX_BACKOFF`] while the store is away,
/// letting go of the task's lock between tries; stops when the task has
/// ended (canceled meanwhile) or the store refuses for another reason.
pub(crate) async fn fail_when_back<S: TaskStore>(store: Arc<S>, live: Arc<LiveTask>) {
    loop {
        {
            let mut state = live.lock().await;
            if state.status.state.is_terminal() {
                return;
            }
            let why = format!(
                "the task store was unreachable for longer than {:?}; the agent's turn was \
                 abandoned and the task failed (it may be sent again)",
                state.outage_patience()
            );
            let message = Message {
                task_id: Some(state.id.clone()),
                context_id: Some(state.context_id.clone()),
                ..Message::text(Role::Agent, super::new_id(), why)
            };
            state.store_lost = false;
            let failed = state
                .set_status(&*store, TaskState::Failed, Some(message))
                .await;
            if failed.is_ok() || !state.store_lost {
                return;
            }
        }
        tokio::time::sleep(MAX_BACKOFF).await;
    }
}
