//! Where push notification configurations are kept: the
//! [`PushConfigStore`] trait the handler reads and writes through, so a
//! durable or shared store fits without touching the agent's side, and
//! [`InMemoryPushConfigStore`].
//!
//! A configuration belongs to a task, and through it to the task's owner:
//! the handler checks that the caller may see the task before it asks the
//! store anything, so a store keys configurations by task id and config id.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;

use futures_util::future::BoxFuture;

use super::store::StoreError;
use crate::types::TaskPushNotificationConfig;

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
}
