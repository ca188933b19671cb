//! A [`TaskStore`] in memory, for one process.

use std::collections::HashMap;
use std::sync::Mutex;

use super::store::{StoreError, TaskPage, TaskQuery, TaskStore, matches};
use crate::types::Task;

/// Tasks in a map, each with the sequence number of its latest save; a page
/// token is the sequence number the page before ended at, so pages stay
/// consistent while older tasks change.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<Tasks>,
}

#[derive(Debug)]
struct Stored {
    seq: u64,
    owner: String,
    task: Task,
}

#[derive(Debug, Default)]
struct Tasks {
    /// Each task with the sequence number of its latest save and its owner.
    by_id: HashMap<String, Stored>,
    saves: u64,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TaskStore for InMemoryTaskStore {
    async fn load(&self, id: &str, owner: &str) -> Result<Option<Task>, StoreError> {
        let tasks = self.tasks.lock().expect("task map poisoned");
        let stored = tasks.by_id.get(id).filter(|stored| stored.owner == owner);
        Ok(stored.map(|stored| stored.task.clone()))
    }

    async fn save(&self, task: Task, owner: &str) -> Result<(), StoreError> {
        let mut tasks = self.tasks.lock().expect("task map poisoned");
        tasks.saves += 1;
        let stored = Stored {
            seq: tasks.saves,
            owner: owner.to_owned(),
            task,
        };
        tasks.by_id.insert(stored.task.id.clone(), stored);
        Ok(())
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let before = match &query.page_token {
            None => u64::MAX,
            Some(token) => token.parse().map_err(|_| StoreError::InvalidPageToken)?,
        };
        let tasks = self.tasks.lock().expect("task map poisoned");
        let mut matching: Vec<(u64, &Task)> = tasks
            .by_id
            .values()
            .filter(|stored| stored.owner == query.owner && matches(query, &stored.task))
            .map(|stored| (stored.seq, &stored.task))
            .collect();
        matching.sort_unstable_by_key(|(seq, _)| std::cmp::Reverse(*seq));
        let total_size = matching.len();
        let rest: Vec<_> = matching
            .into_iter()
            .filter(|(seq, _)| *seq < before)
            .collect();
        let page: Vec<_> = rest.iter().take(query.page_size).collect();
        let next_page_token = match (rest.len() > page.len(), page.last()) {
            (true, Some((seq, _))) => Some(seq.to_string()),
            _ => None,
        };
        Ok(TaskPage {
            tasks: page.into_iter().map(|(_, task)| (*task).clone()).collect(),
            next_page_token,
            total_size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{TaskState, TaskStatus};

    fn task(id: &str, context: &str) -> Task {
        Task {
            id: id.into(),
            context_id: context.into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        }
    }

    #[tokio::test]
    async fn pages_run_latest_first_and_filter() {
        let store = InMemoryTaskStore::new();
        for (id, context) in [("a", "x"), ("b", "y"), ("c", "x"), ("d", "x")] {
            store.save(task(id, context), "").await.unwrap();
        }
        store.save(task("e", "x"), "bob").await.unwrap(); // not ours
        store.save(task("a", "x"), "").await.unwrap(); // `a` is now the latest updated
        let mut query = TaskQuery {
            context_id: Some("x".into()),
            page_size: 2,
            ..TaskQuery::default()
        };
        let first = store.list(&query).await.unwrap();
        let ids = |page: &TaskPage| page.tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
        assert_eq!(
            (ids(&first), first.total_size),
            (vec!["a".to_owned(), "d".to_owned()], 3)
        );
        query.page_token = first.next_page_token;
        let second = store.list(&query).await.unwrap();
        assert_eq!(ids(&second), ["c"]);
        assert_eq!(second.next_page_token, None);
        assert!(store.load("e", "").await.unwrap().is_none());
        assert!(store.load("e", "bob").await.unwrap().is_some());
        query.page_token = Some("nonsense".into());
        assert!(matches!(
            store.list(&query).await,
            Err(StoreError::InvalidPageToken)
        ));
    }
}
