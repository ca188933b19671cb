//! A task being worked on in this process: its latest state behind a lock,
//! the broadcast its subscribers read, the turn that runs, and the driver
//! that turns an agent's events into stored task updates.

use std::sync::Arc;

use tokio::sync::{Mutex, broadcast, mpsc, watch};
use tokio::task::AbortHandle;

use super::executor::AgentEvent;
use super::notifier::PushNotifier;
use super::store::TaskStore;
use crate::error::A2aError;
use crate::types::{
    Artifact, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};

/// Events a subscriber may fall behind by before its stream ends.
const SUBSCRIBER_BACKLOG: usize = 256;

/// How one turn stands, as `SendMessage` waits for it.
#[derive(Clone, Debug)]
pub(crate) enum TurnState {
    /// The agent has published nothing yet.
    Pending,
    /// The agent answered with a message; there is no task.
    Replied(Message),
    /// The task, as it stands after the latest event.
    Task(Task),
}

impl TurnState {
    /// The turn's answer is known: a reply, or a task that ended or waits.
    pub(crate) fn settled(&self) -> bool {
        match self {
            TurnState::Pending => false,
            TurnState::Replied(_) => true,
            TurnState::Task(task) => task.status.state.ends_turn(),
        }
    }
}

/// A task being worked on here.
pub(crate) struct LiveTask {
    pub(crate) state: Mutex<LiveState>,
    pub(crate) events: broadcast::Sender<StreamResponse>,
}

/// What is behind a live task's lock. Every change is made, stored and
/// broadcast while it is held, so a subscriber that reads the task and
/// subscribes under it misses nothing and sees nothing twice.
pub(crate) struct LiveState {
    pub(crate) task: Task,
    /// Who created the task (`""` without authentication): only they see it.
    pub(crate) owner: String,
    /// Where the task's updates are pushed, when the handler pushes them.
    pub(crate) push: Option<Arc<PushNotifier>>,
    /// The running turn's agent, stopped on cancel.
    pub(crate) running: Option<AbortHandle>,
    /// The current turn's state, for `SendMessage` to wait on.
    pub(crate) turn: watch::Sender<TurnState>,
}

impl LiveTask {
    /// A live task starting from `task`, owned by `owner`, its updates
    /// pushed through `push`.
    pub(crate) fn new(
        task: Task,
        owner: String,
        push: Option<Arc<PushNotifier>>,
        turn: TurnState,
    ) -> Arc<Self> {
        let (events, _) = broadcast::channel(SUBSCRIBER_BACKLOG);
        Arc::new(LiveTask {
            state: Mutex::new(LiveState {
                task,
                owner,
                push,
                running: None,
                turn: watch::channel(turn).0,
            }),
            events,
        })
    }
}

impl LiveState {
    /// Moves the task to `state`, stores it and tells everyone. Nothing
    /// changes a task that has ended.
    pub(crate) async fn set_status(
        &mut self,
        store: &impl TaskStore,
        events: &broadcast::Sender<StreamResponse>,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), A2aError> {
        if self.task.status.state.is_terminal() {
            return Ok(());
        }
        if let Some(message) = &message {
            self.task
                .history
                .get_or_insert_with(Vec::new)
                .push(message.clone());
        }
        let status = TaskStatus {
            state,
            message,
            timestamp: Some(super::now()),
        };
        self.task.status = status.clone();
        self.publish(
            store,
            events,
            StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                status,
                metadata: None,
            }),
        )
        .await
    }

    /// Adds an artifact, or a chunk of one, to the task.
    async fn add_artifact(
        &mut self,
        store: &impl TaskStore,
        events: &broadcast::Sender<StreamResponse>,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), A2aError> {
        if self.task.status.state.is_terminal() {
            return Ok(());
        }
        let artifacts = self.task.artifacts.get_or_insert_with(Vec::new);
        match artifacts
            .iter_mut()
            .find(|a| a.artifact_id == artifact.artifact_id)
        {
            Some(existing) if append => existing.parts.extend(artifact.parts.iter().cloned()),
            Some(existing) => *existing = artifact.clone(),
            None => artifacts.push(artifact.clone()),
        }
        self.publish(
            store,
            events,
            StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                artifact,
                append,
                last_chunk,
                metadata: None,
            }),
        )
        .await
    }

    /// Stores the task, then pushes and broadcasts `event` and the turn's new state.
    pub(crate) async fn publish(
        &mut self,
        store: &impl TaskStore,
        events: &broadcast::Sender<StreamResponse>,
        event: StreamResponse,
    ) -> Result<(), A2aError> {
        store
            .save(self.task.clone(), &self.owner)
            .await
            .map_err(|err| A2aError::internal(&err.to_string()))?;
        if let Some(push) = &self.push {
            push.notify(&self.task.id, &event).await;
        }
        // No subscriber is not an error: the event is in the stored task.
        let _ = events.send(event);
        self.turn.send_replace(TurnState::Task(self.task.clone()));
        Ok(())
    }
}

/// Reads one turn's agent events into the task until the turn ends. A new
/// task is registered with `register` at its first event (not for a reply);
/// when the agent stops without ending the turn, the task fails.
pub(crate) async fn drive_turn<S: TaskStore>(
    store: Arc<S>,
    live: Arc<LiveTask>,
    mut agent: mpsc::Receiver<AgentEvent>,
    mut register: Option<impl FnOnce(Arc<LiveTask>) + Send>,
) {
    let mut ended = false;
    while let Some(event) = agent.recv().await {
        if let Some(register) = register.take() {
            if let AgentEvent::Reply(message) = event {
                let _ = live.events.send(StreamResponse::Message(message.clone()));
                live.state
                    .lock()
                    .await
                    .turn
                    .send_replace(TurnState::Replied(message));
                return;
            }
            let mut state = live.state.lock().await;
            let snapshot = StreamResponse::Task(state.task.clone());
            if state
                .publish(&*store, &live.events, snapshot)
                .await
                .is_err()
            {
                return;
            }
            register(live.clone());
        }
        let mut state = live.state.lock().await;
        let applied = match event {
            AgentEvent::Reply(message) => {
                // A reply inside a task is the agent's word on it, kept in the history.
                let state_now = state.task.status.state;
                state
                    .set_status(&*store, &live.events, state_now, Some(message))
                    .await
            }
            AgentEvent::Status(new_state, message) => {
                state
                    .set_status(&*store, &live.events, new_state, message)
                    .await
            }
            AgentEvent::Artifact {
                artifact,
                append,
                last_chunk,
            } => {
                state
                    .add_artifact(&*store, &live.events, artifact, append, last_chunk)
                    .await
            }
        };
        if applied.is_err() || state.task.status.state.ends_turn() {
            ended = true;
            state.running = None;
            break;
        }
    }
    if !ended {
        let mut state = live.state.lock().await;
        if let Some(register) = register.take() {
            let snapshot = StreamResponse::Task(state.task.clone());
            if state
                .publish(&*store, &live.events, snapshot)
                .await
                .is_err()
            {
                return;
            }
            register(live.clone());
        }
        state.running = None;
        let message = Message {
            task_id: Some(state.task.id.clone()),
            context_id: Some(state.task.context_id.clone()),
            ..Message::text(
                crate::types::Role::Agent,
                super::new_id(),
                "the agent stopped before the task ended",
            )
        };
        let _ = state
            .set_status(&*store, &live.events, TaskState::Failed, Some(message))
            .await;
    }
}
