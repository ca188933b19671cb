//! Other processes' events on this process's live tasks: the store's
//! [`Notice`]s relayed to each live task of theirs, so its subscribers
//! here read those events from the log and its status stays current (a
//! cancel through another replica stops the turn running here).

use std::sync::{Arc, Weak};

use tokio::sync::broadcast::{self, error::RecvError};

use super::Shared;
use crate::server::AgentExecutor;
use crate::server::live::LiveTask;
use crate::server::store::{Notice, Seq, TaskStore};

/// Relays the news of `shared`'s store, when it has any, until the
/// handler is gone; nothing outside a Tokio runtime.
pub(super) fn hear<E: AgentExecutor, S: TaskStore>(shared: &Arc<Shared<E, S>>) {
    let Some(notices) = shared.store.notices() else {
        return;
    };
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(relay(Arc::downgrade(shared), notices));
    }
}

async fn relay<E: AgentExecutor, S: TaskStore>(
    shared: Weak<Shared<E, S>>,
    mut notices: broadcast::Receiver<Notice>,
) {
    loop {
        let notice = match notices.recv().await {
            Ok(notice) => notice,
            // Fell behind: the news missed is read from the log instead.
            Err(RecvError::Lagged(_)) => Notice::Resync,
            Err(RecvError::Closed) => return,
        };
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let (tasks, seq): (Vec<Arc<LiveTask>>, Seq) = {
            let live = shared.live.lock().expect("live map poisoned");
            match notice {
                Notice::Appended { task_id, seq } => {
                    (live.get(&task_id).cloned().into_iter().collect(), seq)
                }
                Notice::Resync => (live.values().cloned().collect(), Seq::MAX),
            }
        };
        for task in tasks {
            task.lock().await.heard(&*shared.store, seq).await;
            shared.retire(&task).await;
        }
    }
}
