//! A task store that stays away longer than a turn's patience: the turn is
//! abandoned, and once the store is back its task is failed, saying why,
//! instead of staying `working` with no one running it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use typed_rpc::CallError;
use typed_rpc_a2a::http::app;
use typed_rpc_a2a::server::{
    InMemoryTaskStore, RequestHandler, Seq, Snapshot, StoreError, StoredEvent, TaskEvent, TaskPage,
    TaskQuery, TaskStore, TaskView,
};
use typed_rpc_a2a::text_agent::TextAgent;
use typed_rpc_a2a::types::*;

use crate::support::*;

/// An in-memory store that can be taken away: while down, every call
/// fails as unavailable, as a database restarting does.
#[derive(Default)]
struct FlakyStore {
    inner: InMemoryTaskStore,
    down: Arc<AtomicBool>,
}

impl FlakyStore {
    fn reach(&self) -> Result<(), StoreError> {
        match self.down.load(Ordering::SeqCst) {
            true => Err(StoreError::Unavailable(
                "the test took the store away".into(),
            )),
            false => Ok(()),
        }
    }
}

impl TaskStore for FlakyStore {
    async fn create(&self, task: &Task, owner: &str) -> Result<(), StoreError> {
        self.reach()?;
        self.inner.create(task, owner).await
    }

    async fn append(&self, task_id: &str, event: &TaskEvent) -> Result<Seq, StoreError> {
        self.reach()?;
        self.inner.append(task_id, event).await
    }

    async fn load(
        &self,
        id: &str,
        owner: &str,
        view: TaskView,
    ) -> Result<Option<Snapshot>, StoreError> {
        self.reach()?;
        self.inner.load(id, owner, view).await
    }

    async fn events_after(
        &self,
        task_id: &str,
        after: Seq,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.reach()?;
        self.inner.events_after(task_id, after, limit).await
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        self.reach()?;
        self.inner.list(query).await
    }
}

#[tokio::test]
async fn a_turn_abandoned_to_a_long_store_outage_fails_its_task_once_the_store_is_back() {
    let store = FlakyStore::default();
    let down = store.down.clone();
    let addr = serve_app(|card| {
        let handler =
            RequestHandler::new(TextAgent, store, card).outage_patience(Duration::from_millis(300));
        app(handler, None).unwrap()
    })
    .await;
    let agent = client(addr).await;
    let request = SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            return_immediately: true,
            ..Default::default()
        }),
        ..send(user("slow 50"))
    };
    let started = task(agent.send_message(request).await.unwrap());
    let get = || GetTaskRequest {
        id: started.id.clone(),
        history_length: None,
    };
    tokio::time::sleep(Duration::from_millis(250)).await;

    down.store(true, Ordering::SeqCst);
    let refused = agent.get_task(get()).await;
    let Err(CallError::App(err)) = refused else {
        panic!("the store is away: {refused:?}")
    };
    assert_eq!(err.info().map(|i| i.reason.as_str()), Some("UNAVAILABLE"));
    // Past the patience (and a backoff): the turn is abandoned.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    down.store(false, Ordering::SeqCst);

    let deadline = Instant::now() + Duration::from_secs(10);
    let failed = loop {
        let now = agent.get_task(get()).await.unwrap();
        if now.status.state.is_terminal() || Instant::now() > deadline {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        failed.status.state,
        TaskState::Failed,
        "{:?}",
        failed.status
    );
    let why = status_text(&failed).unwrap_or_default();
    assert!(why.contains("task store was unreachable"), "{why}");
    let history = failed.history.clone().unwrap_or_default();
    assert!(
        history
            .iter()
            .any(|m| m.first_text() == Some("step 1 of 50")),
        "the steps made before the outage are kept: {history:?}"
    );
    // The agent was stopped: nothing follows the failure.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(agent.get_task(get()).await.unwrap(), failed);
}
