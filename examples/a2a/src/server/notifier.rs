//! Push notifications as a live task sees them: each update it publishes
//! goes to the webhooks its task has in the push store.

use std::sync::Arc;

use bytes::Bytes;

use super::push::MAX_CONFIGS_PER_TASK;
use super::push_sender::PushSender;
use super::push_store::DynPushConfigStore;
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

    /// Queues `event`, an update of the task `task_id`, for its webhooks.
    /// Called under the task's lock, so the webhooks get the updates in the
    /// order subscribers do, and a configuration deleted under the same lock
    /// gets none after. A store that cannot be read costs this update its
    /// pushes, never the task its progress.
    pub(crate) async fn notify(&self, task_id: &str, event: &StreamResponse) {
        let Ok(configs) = self.configs.list(task_id).await else {
            return;
        };
        if configs.is_empty() {
            return;
        }
        let body = Bytes::from(serde_json::to_vec(event).expect("an event serializes"));
        self.sender.send(task_id, &configs, body, event.ends_task());
    }
}
