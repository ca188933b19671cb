//! Where push notification configurations are kept: the
//! [`PushConfigStore`] trait the handler reads and writes through, so a
//! durable or shared store fits without touching the agent's side, and
//! [`InMemoryPushConfigStore`].
//!
//! A configuration belongs to a task, and through it to the task's owner:
//! the handler checks that the caller may see the task before it asks the
//! store anything, so a store keys configurations by task id and config id.
//!
//! A store that processes share may also keep an outbox: each update that
//! is to be pushed stays there, marked as this process's, until it is
//! delivered or given up, and the updates a process left when it died are
//! taken over by another ([`PushConfigStore::take_over`]). Without one (the
//! default, and [`InMemoryPushConfigStore`]), updates wait in this
//! process's memory only.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use futures_util::future::BoxFuture;

use super::store::{Seq, StoreError};
use crate::types::TaskPushNotificationConfig;

/// An update waiting in an outbox for one webhook: the event `seq` of the
/// task `task_id`, for its configuration `config_id`, as the JSON POSTed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingPush {
    /// The task the update is of.
    pub task_id: String,
    /// The configuration (webhook) of the task it goes to.
    pub config_id: String,
    /// The event's number in the task's log.
    pub seq: Seq,
    /// The `StreamResponse` POSTed, as JSON.
    pub body: String,
}

/// Keeps the webhooks of tasks. Every configuration the handler passes
/// has its `id` and `taskId` set.
pub trait PushConfigStore: Send + Sync + 'static {
    /// Stores `config`, replacing the one of the same task and id.
    fn save(
        &self,
        config: TaskPushNotificationConfig,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The configuration `id` of the task `task_id`.
    fn get(
        &self,
        task_id: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<TaskPushNotificationConfig>, StoreError>> + Send;

    /// Every configuration of the task `task_id`, in the order they were made.
    fn list(
        &self,
        task_id: &str,
    ) -> impl Future<Output = Result<Vec<TaskPushNotificationConfig>, StoreError>> + Send;

    /// Removes the configuration `id` of the task `task_id`; removing one
    /// that is not there is not an error.
    fn delete(
        &self,
        task_id: &str,
        id: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Keeps `body`, the event `seq` of the task `task_id`, in the outbox
    /// for each webhook the task has, as this process's to deliver. Saving
    /// or deleting a configuration drops what its webhook has waiting. The
    /// default keeps nothing.
    fn hold(
        &self,
        task_id: &str,
        seq: Seq,
        body: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let _ = (task_id, seq, body);
        async { Ok(()) }
    }

    /// Removes the event `seq` of the task `task_id` from the outbox of
    /// its webhook `config_id`: delivered, or given up.
    fn release(
        &self,
        task_id: &str,
        config_id: &str,
        seq: Seq,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let _ = (task_id, config_id, seq);
        async { Ok(()) }
    }

    /// How often [`take_over`](Self::take_over) is worth calling: `None`
    /// (the default) for a store no other process delivers from.
    fn takeover_interval(&self) -> Option<std::time::Duration> {
        None
    }

    /// Makes the outbox updates of processes that stopped (not heard of
    /// for a lease) this process's, and returns them, each taken by one
    /// process only.
    fn take_over(&self) -> impl Future<Output = Result<Vec<PendingPush>, StoreError>> + Send {
        async { Ok(Vec::new()) }
    }
}

/// Configurations in a map of tasks, for one process.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    by_task: Mutex<HashMap<String, Vec<TaskPushNotificationConfig>>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl PushConfigStore for InMemoryPushConfigStore {
    async fn save(&self, config: TaskPushNotificationConfig) -> Result<(), StoreError> {
        let task_id = config.task_id.clone().unwrap_or_default();
        let mut by_task = self.by_task.lock().expect("push config map poisoned");
        let configs = by_task.entry(task_id).or_default();
        match configs.iter_mut().find(|c| c.id == config.id) {
            Some(existing) => *existing = config,
            None => configs.push(config),
        }
        Ok(())
    }

    async fn get(
        &self,
        task_id: &str,
        id: &str,
    ) -> Result<Option<TaskPushNotificationConfig>, StoreError> {
        let by_task = self.by_task.lock().expect("push config map poisoned");
        let configs = by_task.get(task_id).map(Vec::as_slice).unwrap_or_default();
        Ok(configs
            .iter()
            .find(|c| c.id.as_deref() == Some(id))
            .cloned())
    }

    async fn list(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>, StoreError> {
        let by_task = self.by_task.lock().expect("push config map poisoned");
        Ok(by_task.get(task_id).cloned().unwrap_or_default())
    }

    async fn delete(&self, task_id: &str, id: &str) -> Result<(), StoreError> {
        let mut by_task = self.by_task.lock().expect("push config map poisoned");
        if let Some(configs) = by_task.get_mut(task_id) {
            configs.retain(|c| c.id.as_deref() != Some(id));
            if configs.is_empty() {
                by_task.remove(task_id);
            }
        }
        Ok(())
    }
}

/// [`PushConfigStore`] with boxed futures, so the handler's live tasks can
/// hold any store without naming its type.
pub(crate) trait DynPushConfigStore: Send + Sync + 'static {
    fn save(&self, config: TaskPushNotificationConfig) -> BoxFuture<'_, Result<(), StoreError>>;

    fn get<'a>(
        &'a self,
        task_id: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskPushNotificationConfig>, StoreError>>;

    fn list<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<TaskPushNotificationConfig>, StoreError>>;

    fn delete<'a>(&'a self, task_id: &'a str, id: &'a str)
    -> BoxFuture<'a, Result<(), StoreError>>;

    fn hold<'a>(
        &'a self,
        task_id: &'a str,
        seq: Seq,
        body: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    fn release<'a>(
        &'a self,
        task_id: &'a str,
        config_id: &'a str,
        seq: Seq,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    fn takeover_interval(&self) -> Option<std::time::Duration>;

    fn take_over(&self) -> BoxFuture<'_, Result<Vec<PendingPush>, StoreError>>;
}

impl<P: PushConfigStore> DynPushConfigStore for P {
    fn save(&self, config: TaskPushNotificationConfig) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(PushConfigStore::save(self, config))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskPushNotificationConfig>, StoreError>> {
        Box::pin(PushConfigStore::get(self, task_id, id))
    }

    fn list<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<TaskPushNotificationConfig>, StoreError>> {
        Box::pin(PushConfigStore::list(self, task_id))
    }

    fn delete<'a>(
        &'a self,
        task_id: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(PushConfigStore::delete(self, task_id, id))
    }

    fn hold<'a>(
        &'a self,
        task_id: &'a str,
        seq: Seq,
        body: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(PushConfigStore::hold(self, task_id, seq, body))
    }

    fn release<'a>(
        &'a self,
        task_id: &'a str,
        config_id: &'a str,
        seq: Seq,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(PushConfigStore::release(self, task_id, config_id, seq))
    }

    fn takeover_interval(&self) -> Option<std::time::Duration> {
        PushConfigStore::takeover_interval(self)
    }

    fn take_over(&self) -> BoxFuture<'_, Result<Vec<PendingPush>, StoreError>> {
        Box::pin(PushConfigStore::take_over(self))
    }
}
