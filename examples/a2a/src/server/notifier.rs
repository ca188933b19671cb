//! Push notifications as a live task sees them: each update it publishes
//! goes to the webhooks its task has in the push store, held in the store's
//! outbox until delivered; and the updates a dead process left there,
//! taken over and delivered from here.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use bytes::Bytes;

use super::push::MAX_CONFIGS_PER_TASK;
use super::push_sender::{Outgoing, PushSender};
use super::push_store::{DynPushConfigStore, PendingPush};
use super::store::Seq;
use crate::error::A2aError;
use crate::types::{StreamResponse, TaskPushNotificationConfig};

/// The push store and the sender, shared by every live task.
pub(crate) struct PushNotifier {
    pub(crate) configs: Arc<dyn DynPushConfigStore>,
    pub(crate) sender: PushSender,
}

impl PushNotifier {
    /// Stores `config` (its `id` and `taskId` set, its webhook checked),
    /// replacing the one of the same id; a task takes at most
    /// [`MAX_CONFIGS_PER_TASK`]. A replaced webhook's queued updates are
    /// dropped, and the next go to the new URL.
    pub(crate) async fn keep(&self, config: TaskPushNotificationConfig) -> Result<(), A2aError> {
        let task_id = config.task_id.clone().unwrap_or_default();
        let id = config.id.clone().unwrap_or_default();
        let existing = self.configs.list(&task_id).await?;
        let replaces = existing
            .iter()
            .any(|c| c.id.as_deref() == Some(id.as_str()));
        if !replaces && existing.len() >= MAX_CONFIGS_PER_TASK {
            return Err(A2aError::invalid_params(
                "taskId",
                "the task has as many webhooks as it may have",
            ));
        }
        self.configs.save(config).await?;
        self.sender.forget(&task_id, &id);
        Ok(())
    }

    /// Queues `event`, the event `seq` of the task `task_id`, for its
    /// webhooks, held in the store's outbox until it is delivered. Called
    /// under the task's lock, so the webhooks get the updates in the order
    /// subscribers do, and a configuration deleted under the same lock gets
    /// none after. A store that cannot be read costs this update its pushes,
    /// one that cannot be written its durability, never the task its progress.
    pub(crate) async fn notify(&self, task_id: &str, seq: Seq, event: &StreamResponse) {
        let Ok(configs) = self.configs.list(task_id).await else {
            return;
        };
        if configs.is_empty() {
            return;
        }
        let body = serde_json::to_string(event).expect("an event serializes");
        let _ = self.configs.hold(task_id, seq, &body).await;
        let update = Outgoing {
            seq,
            body: Bytes::from(body),
        };
        self.sender
            .send(task_id, &configs, update, event.ends_task());
    }

    /// Takes over the outbox updates of processes that stopped and queues
    /// them, each webhook's in its task's order; an update whose webhook
    /// is gone, or that is not a `StreamResponse`, is dropped from the outbox.
    pub(crate) async fn take_over(&self) {
        let Ok(pending) = self.configs.take_over().await else {
            return;
        };
        let mut configs: HashMap<(String, String), Option<TaskPushNotificationConfig>> =
            HashMap::new();
        for PendingPush {
            task_id,
            config_id,
            seq,
            body,
        } in pending
        {
            let key = (task_id, config_id);
            if !configs.contains_key(&key) {
                let config = self.configs.get(&key.0, &key.1).await.ok().flatten();
                configs.insert(key.clone(), config);
            }
            let event = serde_json::from_str::<StreamResponse>(&body);
            match (&configs[&key], event) {
                (Some(config), Ok(event)) => {
                    let update = Outgoing {
                        seq,
                        body: Bytes::from(body),
                    };
                    let config = std::slice::from_ref(config);
                    self.sender.send(&key.0, config, update, event.ends_task());
                }
                _ => {
                    let _ = self.configs.release(&key.0, &key.1, seq).await;
                }
            }
        }
    }

    /// Takes over dead processes' updates every interval the store names,
    /// in the background, while the notifier lives; nothing for a store
    /// no other process delivers from, or outside a Tokio runtime.
    pub(crate) fn start_takeover(notifier: &Arc<PushNotifier>) {
        let Some(every) = notifier.configs.takeover_interval() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let notifier: Weak<PushNotifier> = Arc::downgrade(notifier);
        runtime.spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(notifier) = notifier.upgrade() else {
                    return;
                };
                notifier.take_over().await;
            }
        });
    }
}
