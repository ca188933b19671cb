//! One turn of a task: the agent's events read into the task, in order,
//! until the turn ends.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::executor::AgentEvent;
use super::limits::{message_size, parts_size};
use super::live::{LiveState, LiveTask};
use super::outage::fail_when_back;
use super::store::TaskStore;
use crate::error::A2aError;
use crate::types::{Message, Role, TaskState};

/// Reads one turn's agent events into the task until the turn ends. A new
/// task is stored, and registered with `register`, at its first event
/// (not for a reply, which makes no task); when the agent stops without
/// ending the turn, the task fails. A turn whose store stayed away past
/// its patience is abandoned, and its task failed when the store is back.
pub(crate) async fn drive_turn<S: TaskStore>(
    store: Arc<S>,
    live: Arc<LiveTask>,
    agent: mpsc::Receiver<AgentEvent>,
    register: Option<impl FnOnce(Arc<LiveTask>) + Send>,
) {
    read_turn(&*store, &live, agent, register).await;
    // The agent stops at its next event: its receiver is gone.
    let store_lost = live.lock().await.store_lost;
    if store_lost {
        tokio::spawn(fail_when_back(store, live));
    }
}

/// The turn itself: [`drive_turn`] less the ending of an abandoned one.
async fn read_turn<S: TaskStore>(
    store: &S,
    live: &Arc<LiveTask>,
    mut agent: mpsc::Receiver<AgentEvent>,
    mut register: Option<impl FnOnce(Arc<LiveTask>) + Send>,
) {
    while let Some(event) = agent.recv().await {
        let mut state = live.lock().await;
        if let Some(register) = register.take() {
            if let AgentEvent::Reply(message) = event {
                state.reply(message);
                return;
            }
            if state.store_new(store).await.is_err() {
                return;
            }
            register(live.clone());
        }
        let applied = apply(&mut state, store, event).await;
        if applied.is_err() || state.status.state.ends_turn() {
            state.running = None;
            return;
        }
    }
    // The agent returned, or was stopped, before its turn ended.
    let mut state = live.lock().await;
    if let Some(register) = register.take() {
        if state.store_new(store).await.is_err() {
            return;
        }
        register(live.clone());
    }
    state.running = None;
    let message = said(&state, "the agent stopped before the task ended");
    let _ = state
        .set_status(store, TaskState::Failed, Some(message))
        .await;
}

/// Applies one agent event to the task; one that would take the task past
/// its size fails the task instead.
async fn apply(
    state: &mut LiveState,
    store: &impl TaskStore,
    event: AgentEvent,
) -> Result<(), A2aError> {
    let size = match &event {
        AgentEvent::Reply(message) => message_size(message),
        AgentEvent::Status(_, message) => message.as_ref().map_or(0, message_size),
        AgentEvent::Artifact { artifact, .. } => parts_size(&artifact.parts),
    };
    if !state.admits(size) {
        let why = format!(
            "the task outgrew the {} bytes of content this agent keeps for a task",
            state.max_size()
        );
        let message = said(state, &why);
        return state
            .set_status(store, TaskState::Failed, Some(message))
            .await;
    }
    match event {
        AgentEvent::Reply(message) => {
            // A reply inside a task is the agent's word on it, kept in the history.
            let now = state.status.state;
            state.set_status(store, now, Some(message)).await
        }
        AgentEvent::Status(new_state, message) => state.set_status(store, new_state, message).await,
        AgentEvent::Artifact {
            artifact,
            append,
            last_chunk,
        } => {
            state
                .add_artifact(store, artifact, append, last_chunk)
                .await
        }
    }
}

/// A message of the agent's in the task, saying `text`.
fn said(state: &LiveState, text: &str) -> Message {
    Message {
        task_id: Some(state.id.clone()),
        context_id: Some(state.context_id.clone()),
        ..Message::text(Role::Agent, super::new_id(), text)
    }
}
