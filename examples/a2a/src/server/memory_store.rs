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

#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, (u64, Task)>,
    saves: u64,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TaskStore for InMemoryTaskStore {
    async fn load(&self, id: &str) -> Result<Option<Task>, StoreError> {
        let tasks = self.tasks.lock().expect("task map poisoned");
        Ok(tasks.by_id.get(id).map(|(_, task)| task.clone()))
    }

    async fn save(&self, task: Task) -> Result<(), StoreError> {
        let mut tasks = self.tasks.lock().expect("task map poisoned");
        tasks.saves += 1;
        let seq = tasks.saves;
        tasks.by_id.insert(task.id.clone(), (seq, task));
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
            .filter(|(_, task)| matches(query, task))
            .map(|(seq, task)| (*seq, task))
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
            store.save(task(id, context)).await.unwrap();
        }
        store.save(task("a", "x")).await.unwrap(); // `a` is now the latest updated
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
        query.page_token = Some("nonsense".into());
        assert!(matches!(
            store.list(&query).await,
            Err(StoreError::InvalidPageToken)
        ));
    }
}
