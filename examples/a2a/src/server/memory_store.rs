//! A [`TaskStore`] in memory, for one process.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use super::store::{
    Seq, Snapshot, StoreError, StoredEvent, TaskEvent, TaskPage, TaskQuery, TaskStore, TaskView,
    matches,
};
use crate::types::Task;

/// Tasks in a map, each with its owner and the log of its events, and an
/// index of the tasks by their latest update for `list`. An append costs
/// the event: it is applied to the stored task in place and kept in the
/// log. A page token is the update number the page before ended at, so
/// pages stay consistent while older tasks change.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<Tasks>,
}

#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, Stored>,
    /// Task ids by the number of their latest update; the newest last.
    by_update: BTreeMap<u64, String>,
    updates: u64,
}

#[derive(Debug)]
struct Stored {
    owner: String,
    task: Task,
    /// The events, event `n` at index `n - 1`.
    log: Vec<TaskEvent>,
    /// The number of the task's latest update among all tasks'.
    updated: u64,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> std::sync::MutexGuard<'_, Tasks> {
        self.tasks.lock().expect("task map poisoned")
    }
}

impl Tasks {
    /// The next update number, with `id` moved to it in the index.
    fn touch(&mut self, id: &str, before: Option<u64>) -> u64 {
        if let Some(before) = before {
            self.by_update.remove(&before);
        }
        self.updates += 1;
        self.by_update.insert(self.updates, id.to_owned());
        self.updates
    }
}

impl TaskStore for InMemoryTaskStore {
    async fn create(&self, task: &Task, owner: &str) -> Result<(), StoreError> {
        let mut tasks = self.tasks();
        let before = tasks.by_id.get(&task.id).map(|stored| stored.updated);
        let updated = tasks.touch(&task.id, before);
        let stored = Stored {
            owner: owner.to_owned(),
            task: task.clone(),
            log: vec![TaskEvent::Created(task.clone())],
            updated,
        };
        tasks.by_id.insert(task.id.clone(), stored);
        Ok(())
    }

    async fn append(&self, task_id: &str, event: &TaskEvent) -> Result<Seq, StoreError> {
        let mut tasks = self.tasks();
        let stored = tasks.by_id.get(task_id).ok_or(StoreError::NotFound)?;
        if stored.task.status.state.is_terminal() {
            return Err(StoreError::Ended);
        }
        let before = stored.updated;
        let updated = tasks.touch(task_id, Some(before));
        let stored = tasks.by_id.get_mut(task_id).ok_or(StoreError::NotFound)?;
        event.apply_to(&mut stored.task);
        stored.log.push(event.clone());
        stored.updated = updated;
        Ok(stored.log.len() as Seq)
    }

    async fn load(
        &self,
        id: &str,
        owner: &str,
        view: TaskView,
    ) -> Result<Option<Snapshot>, StoreError> {
        let tasks = self.tasks();
        let stored = tasks.by_id.get(id).filter(|stored| stored.owner == owner);
        Ok(stored.map(|stored| Snapshot {
            task: view.copy_of(&stored.task),
            seq: stored.log.len() as Seq,
        }))
    }

    async fn events_after(
        &self,
        task_id: &str,
        after: Seq,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let tasks = self.tasks();
        let stored = tasks.by_id.get(task_id).ok_or(StoreError::NotFound)?;
        let from = usize::try_from(after).unwrap_or(usize::MAX);
        let events = stored.log.iter().enumerate().skip(from).take(limit);
        Ok(events
            .map(|(index, event)| StoredEvent {
                seq: index as Seq + 1,
                event: event.clone(),
            })
            .collect())
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let before = match &query.page_token {
            None => u64::MAX,
            Some(token) => token.parse().map_err(|_| StoreError::InvalidPageToken)?,
        };
        let tasks = self.tasks();
        let mut page = Vec::new();
        let mut next_page_token = None;
        let mut total_size = 0;
        // The newest first; each match counted, the page's copied.
        for (&updated, id) in tasks.by_update.iter().rev() {
            let stored = &tasks.by_id[id];
            if stored.owner != query.owner || !matches(query, &stored.task) {
                continue;
            }
            total_size += 1;
            if updated >= before || next_page_token.is_some() {
                continue;
            }
            if page.len() == query.page_size {
                next_page_token = page.last().map(|(at, _)| u64::to_string(at));
                continue;
            }
            page.push((updated, query.view.copy_of(&stored.task)));
        }
        Ok(TaskPage {
            tasks: page.into_iter().map(|(_, task)| task).collect(),
            next_page_token,
            total_size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store_conformance as conformance;

    #[tokio::test]
    async fn pages_run_latest_first_and_filter() {
        conformance::pages_run_latest_first_and_filter(&InMemoryTaskStore::new()).await;
    }

    #[tokio::test]
    async fn the_log_numbers_events_from_the_creation_and_reads_on_from_any_of_them() {
        conformance::the_log_numbers_events(&InMemoryTaskStore::new()).await;
    }

    #[tokio::test]
    async fn an_ended_task_takes_no_more_events() {
        conformance::an_ended_task_takes_no_more_events(&InMemoryTaskStore::new()).await;
    }

    #[tokio::test]
    async fn chunks_of_an_artifact_read_back_as_one() {
        conformance::chunks_of_an_artifact_read_back_as_one(&InMemoryTaskStore::new()).await;
    }
}
