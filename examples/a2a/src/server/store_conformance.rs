//! What every [`TaskStore`] must do, as tests each store's own test
//! module runs against it: the in-memory store, SQLite, PostgreSQL.

use super::store::{StoreError, TaskEvent, TaskPage, TaskQuery, TaskStore, TaskView};
use crate::types::{
    Artifact, Message, Part, Role, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};

/// A new task `id` in the conversation `context`, submitted, with a first message.
pub(crate) fn task(id: &str, context: &str) -> Task {
    Task {
        id: id.into(),
        context_id: context.into(),
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: Some("2026-01-01T00:00:00Z".into()),
        },
        artifacts: None,
        history: Some(vec![Message::text(Role::User, format!("m-{id}"), "hello")]),
        metadata: None,
    }
}

/// The task `id` moves to `state`.
pub(crate) fn status(id: &str, state: TaskState) -> TaskEvent {
    TaskEvent::Status(TaskStatusUpdateEvent {
        task_id: id.into(),
        context_id: "x".into(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: None,
        },
        metadata: None,
    })
}

fn chunk(id: &str, text: &str, append: bool) -> TaskEvent {
    TaskEvent::Artifact(TaskArtifactUpdateEvent {
        task_id: id.into(),
        context_id: "x".into(),
        artifact: Artifact {
            artifact_id: "a".into(),
            name: None,
            description: None,
            parts: vec![Part::text(text)],
            metadata: None,
            extensions: Vec::new(),
        },
        append,
        last_chunk: false,
        metadata: None,
    })
}

fn ids(page: &TaskPage) -> Vec<String> {
    page.tasks.iter().map(|t| t.id.clone()).collect()
}

pub(crate) async fn pages_run_latest_first_and_filter(store: &impl TaskStore) {
    for (id, context) in [("a", "x"), ("b", "y"), ("c", "x"), ("d", "x")] {
        store.create(&task(id, context), "").await.unwrap();
    }
    store.create(&task("e", "x"), "bob").await.unwrap(); // not ours
    store
        .append("a", &status("a", TaskState::Completed))
        .await
        .unwrap(); // `a` is now the latest updated
    let mut query = TaskQuery {
        context_id: Some("x".into()),
        page_size: 2,
        ..TaskQuery::default()
    };
    let first = store.list(&query).await.unwrap();
    assert_eq!(
        (ids(&first), first.total_size),
        (vec!["a".into(), "d".into()], 3)
    );
    query.page_token = first.next_page_token;
    let second = store.list(&query).await.unwrap();
    assert_eq!((ids(&second), second.total_size), (vec!["c".into()], 3));
    assert_eq!(second.next_page_token, None);
    query.state = Some(TaskState::Completed);
    query.page_token = None;
    assert_eq!(ids(&store.list(&query).await.unwrap()), ["a"]);
    let view = TaskView::default();
    assert!(store.load("e", "", view).await.unwrap().is_none());
    assert!(store.load("e", "bob", view).await.unwrap().is_some());
    query.page_token = Some("nonsense".into());
    assert!(matches!(
        store.list(&query).await,
        Err(StoreError::InvalidPageToken)
    ));
}

pub(crate) async fn the_log_numbers_events(store: &impl TaskStore) {
    store.create(&task("t", "x"), "").await.unwrap();
    let working = status("t", TaskState::Working);
    assert_eq!(store.append("t", &working).await.unwrap(), 2);
    let all = store.events_after("t", 0, 10).await.unwrap();
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
    assert!(matches!(all[0].event, TaskEvent::Created(_)));
    assert_eq!(all[1].event, working);
    let rest = store.events_after("t", 1, 10).await.unwrap();
    assert_eq!(rest, all[1..]);
    assert!(store.events_after("t", 2, 10).await.unwrap().is_empty());
    assert_eq!(store.events_after("t", 0, 1).await.unwrap().len(), 1);
    let snapshot = store
        .load("t", "", TaskView::default())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (snapshot.seq, snapshot.task.status.state),
        (2, TaskState::Working)
    );
    assert_eq!(snapshot.task.history.map(|h| h.len()), Some(1));
    let missing = store.append("nope", &working).await;
    assert!(matches!(missing, Err(StoreError::NotFound)));
    assert!(matches!(
        store.events_after("nope", 0, 1).await,
        Err(StoreError::NotFound)
    ));
}

pub(crate) async fn an_ended_task_takes_no_more_events(store: &impl TaskStore) {
    store.create(&task("t", "x"), "").await.unwrap();
    store
        .append("t", &status("t", TaskState::Canceled))
        .await
        .unwrap();
    let late = store.append("t", &status("t", TaskState::Completed)).await;
    assert!(matches!(late, Err(StoreError::Ended)), "{late:?}");
    let late_chunk = store.append("t", &chunk("t", "late", false)).await;
    assert!(matches!(late_chunk, Err(StoreError::Ended)));
    let now = store
        .load("t", "", TaskView::default())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((now.seq, now.task.status.state), (2, TaskState::Canceled));
}

pub(crate) async fn chunks_of_an_artifact_read_back_as_one(store: &impl TaskStore) {
    store.create(&task("t", "x"), "").await.unwrap();
    for (text, append) in [("one ", false), ("two ", true), ("three", true)] {
        store.append("t", &chunk("t", text, append)).await.unwrap();
    }
    let now = store
        .load("t", "", TaskView::default())
        .await
        .unwrap()
        .unwrap();
    let artifacts = now.task.artifacts.unwrap();
    assert_eq!(artifacts.len(), 1);
    assert_eq!(artifacts[0].parts, vec![Part::text("one two three")]);
    let bare = TaskView {
        history_length: Some(0),
        without_artifacts: true,
    };
    let bare = store.load("t", "", bare).await.unwrap().unwrap().task;
    assert_eq!((bare.artifacts, bare.history), (None, None));
}

/// For stores that keep messages themselves (not the in-memory one, whose
/// handler remembers them).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) async fn a_claimed_message_is_a_retry_after(store: &impl TaskStore) {
    use super::store::Claim;

    let first = store.claim_message("", "m1", "t1").await.unwrap();
    assert_eq!(first, Claim::First);
    let again = store.claim_message("", "m1", "t2").await.unwrap();
    assert_eq!(
        again,
        Claim::Retry {
            task_id: "t1".into(),
            reply: None
        }
    );
    assert_eq!(
        store.claim_message("bob", "m1", "t3").await.unwrap(),
        Claim::First
    );
    let reply = Message::text(Role::Agent, "r1", "hi");
    store.record_reply("", "m1", &reply).await.unwrap();
    let replied = store.claim_message("", "m1", "t4").await.unwrap();
    assert_eq!(
        replied,
        Claim::Retry {
            task_id: "t1".into(),
            reply: Some(Box::new(reply))
        }
    );
}
