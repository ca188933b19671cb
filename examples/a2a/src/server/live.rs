//! A task being worked on in this process: what it is now (its status,
//! the number of its latest event, its size) behind a lock, the broadcast
//! its subscribers read, and the turn that runs. The task itself is in
//! the store: an event is appended there, pushed and broadcast, and costs
//! what the event weighs, whatever the task's size.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, broadcast, watch};
use tokio::task::AbortHandle;

use super::limits::{message_size, parts_size};
use super::notifier::PushNotifier;
use super::outage::{append_surely, create_surely};
use super::store::{Seq, StoreError, TaskEvent, TaskStore, TaskView};
use crate::error::A2aError;
use crate::types::{
    Artifact, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};

/// Events a subscriber may fall behind by before it catches up from the
/// store's log instead.
const SUBSCRIBER_BACKLOG: usize = 256;

/// How one turn stands, as `SendMessage` waits for it.
#[derive(Clone, Debug)]
pub(crate) enum TurnState {
    /// The agent has published nothing yet.
    Pending,
    /// The agent answered with a message; there is no task.
    Replied(Message),
    /// The task (in the store) is in this state.
    Task { id: String, state: TaskState },
}

impl TurnState {
    /// The turn's answer is known: a reply, or a task that ended or waits.
    pub(crate) fn settled(&self) -> bool {
        match self {
            TurnState::Pending => false,
            TurnState::Replied(_) => true,
            TurnState::Task { state, .. } => state.ends_turn(),
        }
    }
}

/// One event as the broadcast carries it: its number in the task's log
/// (0 for a reply, which has no task) and what subscribers see of it
/// (`None` for a user's message continuing the task).
///
/// A notice carries only a number: the task's log holds its events up to
/// it (appended by another process), for the subscriber to read there.
#[derive(Clone, Debug)]
pub(crate) struct Published {
    pub(crate) seq: Seq,
    pub(crate) event: Option<StreamResponse>,
    pub(crate) notice: bool,
}

impl Published {
    /// The event `seq`, as subscribers see it.
    pub(crate) fn event(seq: Seq, event: Option<StreamResponse>) -> Self {
        Published {
            seq,
            event,
            notice: false,
        }
    }

    /// News that the log holds events up to `seq`.
    pub(crate) fn notice(seq: Seq) -> Self {
        Published {
            seq,
            event: None,
            notice: true,
        }
    }
}

/// A task being worked on here.
pub(crate) type LiveTask = Mutex<LiveState>;

/// What is behind a live task's lock. Every event is appended, pushed and
/// broadcast while it is held, so a subscriber that reads the task and
/// subscribes under it misses nothing and sees nothing twice.
pub(crate) struct LiveState {
    pub(crate) id: String,
    pub(crate) context_id: String,
    pub(crate) status: TaskStatus,
    /// The number of the task's latest event this process knows of.
    seq: Seq,
    /// A new task not stored yet: its agent has published nothing.
    unstored: Option<Task>,
    /// Bytes of content in the task's history and artifacts.
    size: usize,
    /// The most content the task may hold.
    max_size: usize,
    /// Who created the task (`""` without authentication): only they see it.
    pub(crate) owner: String,
    /// Where the task's updates are pushed, when the handler pushes them.
    push: Option<Arc<PushNotifier>>,
    /// The running turn's agent, stopped on cancel.
    pub(crate) running: Option<AbortHandle>,
    /// How long an event waits for an unreachable store.
    patience: Duration,
    /// An event was given up because the store stayed away past `patience`.
    pub(crate) store_lost: bool,
    /// The current turn's state, for `SendMessage` to wait on.
    pub(crate) turn: watch::Sender<TurnState>,
    events: broadcast::Sender<Published>,
}

/// Where a live task's events go and the most it may hold: what every
/// live task of one handler shares.
#[derive(Clone)]
pub(crate) struct LiveSettings {
    pub(crate) push: Option<Arc<PushNotifier>>,
    pub(crate) max_task_size: usize,
    pub(crate) outage_patience: Duration,
}

impl LiveState {
    /// A new task, not stored until its agent publishes, owned by `owner`.
    pub(crate) fn new_task(task: Task, owner: String, settings: &LiveSettings) -> Arc<LiveTask> {
        let size = task.history.iter().flatten().map(message_size).sum();
        let mut state = LiveState::of(&task, owner, settings, TurnState::Pending);
        state.size = size;
        state.unstored = Some(task);
        Arc::new(Mutex::new(state))
    }

    /// A task read from the store at its event `seq`, made live here.
    pub(crate) fn stored(
        task: &Task,
        seq: Seq,
        owner: String,
        settings: &LiveSettings,
    ) -> Arc<LiveTask> {
        let turn = TurnState::Task {
            id: task.id.clone(),
            state: task.status.state,
        };
        let mut state = LiveState::of(task, owner, settings, turn);
        state.size = task_size(task);
        state.seq = seq;
        Arc::new(Mutex::new(state))
    }

    fn of(task: &Task, owner: String, settings: &LiveSettings, turn: TurnState) -> Self {
        LiveState {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            seq: 0,
            unstored: None,
            size: 0,
            max_size: settings.max_task_size,
            owner,
            push: settings.push.clone(),
            running: None,
            patience: settings.outage_patience,
            store_lost: false,
            turn: watch::channel(turn).0,
            events: broadcast::channel(SUBSCRIBER_BACKLOG).0,
        }
    }

    /// The events from the next one on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Published> {
        self.events.subscribe()
    }

    /// Whether the task may take `bytes` more of content.
    pub(crate) fn admits(&self, bytes: usize) -> bool {
        self.size.saturating_add(bytes) <= self.max_size
    }

    /// The most content the task may hold.
    pub(crate) fn max_size(&self) -> usize {
        self.max_size
    }

    /// How long an event waits for an unreachable store.
    pub(crate) fn outage_patience(&self) -> Duration {
        self.patience
    }

    /// Stores the new task as its agent's first event arrives, and tells
    /// everyone: the task is its streams' first event.
    pub(crate) async fn store_new(&mut self, store: &impl TaskStore) -> Result<(), A2aError> {
        let Some(task) = self.unstored.take() else {
            return Ok(());
        };
        create_surely(store, &task, &self.owner, self.patience).await?;
        self.tell(1, Some(StreamResponse::Task(task))).await;
        Ok(())
    }

    /// Tells the subscribers of a new task that its agent answered with a
    /// message instead: its streams' only event.
    pub(crate) fn reply(&mut self, message: Message) {
        // No subscriber is not an error.
        let _ = self.events.send(Published::event(
            0,
            Some(StreamResponse::Message(message.clone())),
        ));
        self.turn.send_replace(TurnState::Replied(message));
    }

    /// Moves the task to `state`, with the agent's `message` when given.
    /// Nothing changes a task that has ended.
    pub(crate) async fn set_status(
        &mut self,
        store: &impl TaskStore,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), A2aError> {
        let status = TaskStatus {
            state,
            message,
            timestamp: Some(super::now()),
        };
        let update = TaskStatusUpdateEvent {
            task_id: self.id.clone(),
            context_id: self.context_id.clone(),
            status,
            metadata: None,
        };
        self.publish(store, TaskEvent::Status(update)).await
    }

    /// Adds an artifact, or a chunk of one, to the task.
    pub(crate) async fn add_artifact(
        &mut self,
        store: &impl TaskStore,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), A2aError> {
        let update = TaskArtifactUpdateEvent {
            task_id: self.id.clone(),
            context_id: self.context_id.clone(),
            artifact,
            append,
            last_chunk,
            metadata: None,
        };
        self.publish(store, TaskEvent::Artifact(update)).await
    }

    /// Adds a user's message continuing the task to its history.
    pub(crate) async fn add_message(
        &mut self,
        store: &impl TaskStore,
        message: Message,
    ) -> Result<(), A2aError> {
        self.publish(store, TaskEvent::Message(message)).await
    }

    /// Appends `event` to the store, then pushes and broadcasts it and the
    /// turn's new state. An ended task takes no more events.
    async fn publish(&mut self, store: &impl TaskStore, event: TaskEvent) -> Result<(), A2aError> {
        if self.status.state.is_terminal() {
            return Ok(());
        }
        let seq = match append_surely(store, &self.id, self.seq, &event, self.patience).await {
            Ok(seq) => seq,
            Err(StoreError::Ended) => return self.ended_elsewhere(store).await,
            Err(err) => {
                self.store_lost = matches!(err, StoreError::Unavailable(_));
                return Err(err.into());
            }
        };
        self.size = self.size.saturating_add(event_size(&event));
        if let TaskEvent::Status(update) = &event {
            self.status = update.status.clone();
        }
        self.tell(seq, event.into_stream()).await;
        Ok(())
    }

    /// Pushes and broadcasts the event `seq` (stored already), and moves
    /// the turn on when the task's state changed.
    async fn tell(&mut self, seq: Seq, event: Option<StreamResponse>) {
        if let (Some(push), Some(event)) = (&self.push, &event) {
            push.notify(&self.id, seq, event).await;
        }
        self.seq = self.seq.max(seq);
        // No subscriber is not an error: the event is in the store.
        let _ = self.events.send(Published::event(seq, event));
        self.move_turn();
    }

    /// The store refused an event because another process (a replica
    /// serving `CancelTask`) ended the task: its status is taken from the
    /// store, and the turn ends with it. Subscribers read that event from
    /// the log.
    async fn ended_elsewhere(&mut self, store: &impl TaskStore) -> Result<(), A2aError> {
        let view = TaskView {
            history_length: Some(0),
            without_artifacts: true,
        };
        let now = store.load(&self.id, &self.owner, view).await?;
        if let Some(now) = now {
            self.status = now.task.status;
            self.seq = now.seq;
            let _ = self.events.send(Published::notice(now.seq));
        }
        self.move_turn();
        Ok(())
    }

    /// News that the store holds the task's events up to `seq`, appended
    /// by another process (`Seq::MAX`: news may have been missed). The
    /// subscribers read them from the log; the status is read again, and a
    /// task another replica ended (a cancel through it) stops its turn here.
    pub(crate) async fn heard(&mut self, store: &impl TaskStore, seq: Seq) {
        if seq <= self.seq {
            return;
        }
        let view = TaskView {
            history_length: Some(0),
            without_artifacts: true,
        };
        let Ok(Some(now)) = store.load(&self.id, &self.owner, view).await else {
            let _ = self.events.send(Published::notice(seq));
            return;
        };
        // As far as the store has got by now: news of the events read here
        // is passed over when it comes.
        let _ = self.events.send(Published::notice(seq.max(now.seq)));
        if now.seq <= self.seq {
            return;
        }
        self.seq = now.seq;
        self.status = now.task.status;
        if self.status.state.is_terminal()
            && let Some(running) = self.running.take()
        {
            running.abort();
        }
        self.move_turn();
    }

    /// Moves the turn on when the task's state changed.
    fn move_turn(&mut self) {
        let state = self.status.state;
        self.turn.send_if_modified(|turn| match turn {
            TurnState::Task { state: now, .. } if *now == state => false,
            _ => {
                *turn = TurnState::Task {
                    id: self.id.clone(),
                    state,
                };
                true
            }
        });
    }
}

/// The content an event adds to its task.
pub(crate) fn event_size(event: &TaskEvent) -> usize {
    match event {
        TaskEvent::Created(task) => task_size(task),
        TaskEvent::Message(message) => message_size(message),
        TaskEvent::Status(update) => update.status.message.as_ref().map_or(0, message_size),
        TaskEvent::Artifact(update) => parts_size(&update.artifact.parts),
    }
}

/// The content of a whole task: its history and its artifacts.
fn task_size(task: &Task) -> usize {
    let history: usize = task.history.iter().flatten().map(message_size).sum();
    let artifacts: usize = task
        .artifacts
        .iter()
        .flatten()
        .map(|a| parts_size(&a.parts))
        .sum();
    history + artifacts
}
