//! The turn a retried message joins: the one its first copy started in
//! this process, or, when the store says another process (a replica, or
//! this agent before a restart) took the message, the turn as the store
//! shows it.

use std::time::Duration;

use tokio::sync::watch;

use super::RequestHandler;
use crate::error::A2aError;
use crate::server::AgentExecutor;
use crate::server::dedup::MessageKey;
use crate::server::live::TurnState;
use crate::server::store::{Claim, TaskStore, TaskView};
use crate::types::Message;

/// How often the store is read for a turn running elsewhere.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// How long a retry waits for a turn running elsewhere to answer.
const PATIENCE: Duration = Duration::from_secs(60);

impl<E: AgentExecutor, S: TaskStore> RequestHandler<E, S> {
    /// The turn a retry of the message `key` joins: the one it started in
    /// this process, or the one the store says another process (or this
    /// one a moment ago) claimed it for. `None` for a new message, which is
    /// then claimed in the store for the turn of `task_id`.
    pub(super) async fn joined_turn(
        &self,
        key: &MessageKey,
        task_id: &str,
    ) -> Result<Option<watch::Receiver<TurnState>>, A2aError> {
        if let Some(turn) = self.seen(key) {
            return Ok(Some(turn));
        }
        let claim = self.shared.store.claim_message(&key.0, &key.1, task_id);
        Ok(match claim.await? {
            Claim::First => None,
            Claim::Retry { task_id, reply } => {
                Some(self.turn_elsewhere(key.clone(), task_id, reply))
            }
        })
    }

    /// The turn the message `key` started in this process, when remembered.
    fn seen(&self, key: &MessageKey) -> Option<watch::Receiver<TurnState>> {
        let mut sent = self.shared.sent.lock().expect("sent map poisoned");
        sent.get(key)
    }

    /// The turn of the task `task_id` that the message `key` started
    /// elsewhere: its `reply` when it answered with one, the turn started
    /// here when it is here after all, otherwise the task's state as the
    /// store has it, read until the turn settles (it is stored once its
    /// agent publishes, wherever it runs).
    fn turn_elsewhere(
        &self,
        key: MessageKey,
        task_id: String,
        reply: Option<Box<Message>>,
    ) -> watch::Receiver<TurnState> {
        if let Some(reply) = reply {
            return watch::channel(TurnState::Replied(*reply)).1;
        }
        let (sender, turn) = watch::channel(TurnState::Pending);
        let handler = self.clone();
        tokio::spawn(async move {
            let view = TaskView {
                history_length: Some(0),
                without_artifacts: true,
            };
            let deadline = tokio::time::Instant::now() + PATIENCE;
            loop {
                if let Some(here) = handler.seen(&key) {
                    // The first copy was claimed here a moment ago: follow its turn.
                    forward(here, &sender).await;
                    return;
                }
                if let Ok(Some(now)) = handler.shared.store.load(&task_id, &key.0, view).await {
                    let state = TurnState::Task {
                        id: task_id.clone(),
                        state: now.task.status.state,
                    };
                    let settled = state.settled();
                    sender.send_replace(state);
                    if settled {
                        return;
                    }
                }
                if sender.is_closed() || tokio::time::Instant::now() >= deadline {
                    // Dropped unanswered: the caller hears the turn has no answer.
                    return;
                }
                tokio::time::sleep(POLL_EVERY).await;
            }
        });
        turn
    }
}

/// Copies `from`'s states into `to` until `from` ends or no one reads `to`.
async fn forward(mut from: watch::Receiver<TurnState>, to: &watch::Sender<TurnState>) {
    loop {
        to.send_replace(from.borrow_and_update().clone());
        tokio::select! {
            changed = from.changed() => if changed.is_err() { return },
            _ = to.closed() => return,
        }
    }
}
