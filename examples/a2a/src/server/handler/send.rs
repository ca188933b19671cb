//! `SendMessage` and `SendStreamingMessage`: a message checked, then a new
//! task's turn started, a waiting task's next turn, or the turn a retried
//! message started found again.

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, watch};
use typed_rpc::Context;

use super::{RequestHandler, owner};
use crate::error::A2aError;
use crate::server::auth::Caller;
use crate::server::dedup::MessageKey;
use crate::server::executor::{AgentEvent, EventSink, RequestContext};
use crate::server::live::{LiveState, LiveTask, Published, TurnState};
use crate::server::protocol::ActiveExtensions;
use crate::server::store::{Seq, TaskStore, TaskView};
use crate::server::turn::drive_turn;
use crate::server::validate::{check_message, history_length};
use crate::server::{AgentExecutor, new_id, now};
use crate::types::*;

/// Events an agent may publish ahead of the handler storing them.
const AGENT_BACKLOG: usize = 16;

/// A turn as `SendMessage` sees it.
pub(super) struct Turn {
    pub(super) state: watch::Receiver<TurnState>,
    /// The task the turn works on (a new task's id even if it becomes a reply).
    pub(super) task_id: String,
    /// The live events for a stream, and the number of the event they follow.
    pub(super) events: Option<(broadcast::Receiver<Published>, Seq)>,
    /// The event a stream starts with, when not the first broadcast one.
    pub(super) first: Option<StreamResponse>,
    /// How much history the answer's task shows (`configuration.historyLength`).
    pub(super) history_length: Option<usize>,
}

/// What a message needs besides itself to make a turn.
struct Sending {
    caller: Option<Caller>,
    extensions: Vec<String>,
    webhook: Option<TaskPushNotificationConfig>,
    subscribe: bool,
    /// The message's content, in bytes.
    size: usize,
}

/// What a turn starts.
enum Starts {
    /// A new task, with the webhook its message configures, if any, and
    /// the key its reply is kept under for retries, if it is.
    NewTask {
        webhook: Option<TaskPushNotificationConfig>,
        reply_key: Option<MessageKey>,
    },
    /// The next turn of a task that waited for input.
    NextTurn,
}

impl<E: AgentExecutor, S: TaskStore> RequestHandler<E, S> {
    /// Checks `request`, then starts its turn, or finds the one a retry of
    /// its message started. For a stream (`subscribe`), the turn comes with
    /// a subscription taken before its first event.
    pub(super) async fn send(
        &self,
        cx: &Context,
        request: SendMessageRequest,
        subscribe: bool,
    ) -> Result<Turn, A2aError> {
        let configuration = request.configuration.unwrap_or_default();
        let history_length =
            history_length(configuration.history_length, "configuration.historyLength")?;
        let mut message = request.message;
        let size = check_message(&message, &self.limits)?;
        self.modes.check_input(&message)?;
        self.modes
            .check_output(&configuration.accepted_output_modes)?;
        let webhook = configuration
            .task_push_notification_config
            .map(|config| self.checked_webhook(config))
            .transpose()?;
        let sending = Sending {
            caller: Caller::of(cx).cloned(),
            extensions: ActiveExtensions::of(cx).to_vec(),
            webhook,
            subscribe,
            size,
        };
        let key = (owner(cx), message.message_id.clone());
        let task_id = message.task_id.clone().filter(|id| !id.is_empty());
        if self.deduplicate {
            let claimed_for = task_id.clone().unwrap_or_else(new_id);
            if let Some(turn) = self.joined_turn(&key, &claimed_for).await? {
                return Ok(retried(turn, history_length));
            }
            message.task_id = Some(claimed_for);
        }
        let mut turn = match task_id {
            None => {
                // Looked up and claimed under one lock, so two copies of a new
                // message arriving at once start one turn.
                let mut sent = self.shared.sent.lock().expect("sent map poisoned");
                if let Some(turn) = sent.get(&key).filter(|_| self.deduplicate) {
                    return Ok(retried(turn, history_length));
                }
                let reply_key = self.deduplicate.then(|| key.clone());
                let turn = self.start_task(message, sending, reply_key);
                if self.deduplicate {
                    sent.insert(key, turn.state.clone());
                }
                turn
            }
            Some(task_id) => {
                let turn = self.continue_task(&task_id, message, sending).await?;
                if self.deduplicate {
                    let mut sent = self.shared.sent.lock().expect("sent map poisoned");
                    sent.insert(key, turn.state.clone());
                }
                turn
            }
        };
        turn.history_length = history_length;
        Ok(turn)
    }

    /// Starts a new task for `message`, under the id it was claimed with
    /// (a new one when it was not); its reply, if it answers with one, is
    /// kept for retries under `reply_key`.
    fn start_task(
        &self,
        mut message: Message,
        sending: Sending,
        reply_key: Option<MessageKey>,
    ) -> Turn {
        let task_id = message.task_id.take().unwrap_or_else(new_id);
        let context_id = message.context_id.clone().unwrap_or_else(new_id);
        message.context_id = Some(context_id.clone());
        message.task_id = Some(task_id.clone());
        let task = Task {
            id: task_id.clone(),
            context_id: context_id.clone(),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(now()),
            },
            artifacts: None,
            history: Some(vec![message.clone()]),
            metadata: None,
        };
        let owner = sending.caller.as_ref().map(|c| c.name.clone());
        let live = LiveState::new_task(task, owner.unwrap_or_default(), &self.live_settings());
        let mut state = live.try_lock().expect("a new task is not shared yet");
        let events = sending.subscribe.then(|| (state.subscribe(), 0));
        let webhook = sending.webhook.map(|config| TaskPushNotificationConfig {
            task_id: Some(task_id.clone()),
            ..config
        });
        let request = RequestContext {
            message,
            task_id: task_id.clone(),
            context_id,
            task: None,
            caller: sending.caller,
            extensions: sending.extensions,
        };
        let starts = Starts::NewTask { webhook, reply_key };
        let turn = self.run_turn(&mut state, live.clone(), request, starts);
        drop(state);
        Turn {
            state: turn,
            task_id,
            events,
            first: None,
            history_length: None,
        }
    }

    /// Starts the next turn of the task `task_id`, which must be waiting
    /// for the user.
    async fn continue_task(
        &self,
        task_id: &str,
        mut message: Message,
        sending: Sending,
    ) -> Result<Turn, A2aError> {
        let owner = sending.caller.as_ref().map(|c| c.name.clone());
        let owner = owner.unwrap_or_default();
        let live = self.live(task_id, &owner).await?;
        let mut state = live.lock().await;
        let task_state = state.status.state;
        if task_state.is_terminal() {
            return Err(A2aError::unsupported_operation(
                "the task has ended and takes no more messages",
            ));
        }
        if !task_state.is_interrupted() {
            return Err(A2aError::unsupported_operation("the task is still working"));
        }
        if message
            .context_id
            .as_ref()
            .is_some_and(|c| *c != state.context_id)
        {
            return Err(A2aError::invalid_params(
                "message.contextId",
                "not the contextId of the task the message continues",
            ));
        }
        if !state.admits(sending.size) {
            return Err(A2aError::invalid_params(
                "message.parts",
                &format!(
                    "the task would hold more than the {} bytes of content this agent keeps for a task",
                    state.max_size()
                ),
            ));
        }
        if let Some(config) = sending.webhook {
            let config = TaskPushNotificationConfig {
                task_id: Some(task_id.to_owned()),
                ..config
            };
            self.pusher()?.keep(config).await?;
        }
        let waiting = self.load(task_id, &owner, TaskView::default()).await?.task;
        message.context_id = Some(state.context_id.clone());
        let store = &*self.shared.store;
        state.add_message(store, message.clone()).await?;
        state.turn.send_replace(TurnState::Pending);
        state.set_status(store, TaskState::Submitted, None).await?;
        let (first, events) = if sending.subscribe {
            let now = self.load(task_id, &owner, TaskView::default()).await?;
            let events = (state.subscribe(), now.seq);
            (Some(StreamResponse::Task(now.task)), Some(events))
        } else {
            (None, None)
        };
        let request = RequestContext {
            message,
            task_id: task_id.to_owned(),
            context_id: state.context_id.clone(),
            task: Some(waiting),
            caller: sending.caller,
            extensions: sending.extensions,
        };
        let turn = self.run_turn(&mut state, live.clone(), request, Starts::NextTurn);
        Ok(Turn {
            state: turn,
            task_id: task_id.to_owned(),
            events,
            first,
            history_length: None,
        })
    }

    /// Runs the agent on `request` and a driver that applies its events;
    /// `state` is the locked state of `live`. A new task becomes visible
    /// to the other methods at its first event.
    fn run_turn(
        &self,
        state: &mut LiveState,
        live: Arc<LiveTask>,
        request: RequestContext,
        starts: Starts,
    ) -> watch::Receiver<TurnState> {
        let (sender, receiver) = mpsc::channel::<AgentEvent>(AGENT_BACKLOG);
        let sink = EventSink::new(sender, request.task_id.clone(), request.context_id.clone());
        let agent = self.shared.agent.clone();
        let turn = state.turn.subscribe();
        state.running =
            Some(tokio::spawn(async move { agent.execute(request, sink).await }).abort_handle());
        let shared = self.shared.clone();
        let task_id = state.id.clone();
        let (register, webhook, reply_key) = match starts {
            Starts::NewTask { webhook, reply_key } => {
                let register = move |live: Arc<LiveTask>| {
                    let mut map = shared.live.lock().expect("live map poisoned");
                    map.insert(task_id, live);
                };
                (Some(register), webhook, reply_key)
            }
            Starts::NextTurn => (None, None, None),
        };
        let (store, shared, push) = (
            self.shared.store.clone(),
            self.shared.clone(),
            self.push.clone(),
        );
        tokio::spawn(async move {
            let kept = match (&push, webhook) {
                // Kept before the driver applies the first event, so the
                // webhook gets every update. The message may be answered by
                // then: a store that fails costs the task its pushes, not
                // its work.
                (Some(push), Some(config)) => push.keep(config.clone()).await.ok().map(|()| config),
                _ => None,
            };
            drive_turn(store.clone(), live.clone(), receiver, register).await;
            let reply = match &*live.lock().await.turn.borrow() {
                TurnState::Replied(message) => Some(message.clone()),
                _ => None,
            };
            if let (Some(reply), Some((owner, message_id))) = (&reply, reply_key) {
                // For a retry that finds the message claimed in the store.
                let _ = store.record_reply(&owner, &message_id, reply).await;
            }
            let replied = reply.is_some();
            if let (Some(push), Some(config), true) = (push, kept, replied) {
                // The agent answered with a message: no task was made for
                // the webhook to hear of.
                let (task_id, id) = (
                    config.task_id.unwrap_or_default(),
                    config.id.unwrap_or_default(),
                );
                let _ = push.configs.delete(&task_id, &id).await;
            }
            shared.retire(&live).await;
        });
        turn
    }
}

/// The turn a retried message joins: no subscription of its own yet.
fn retried(state: watch::Receiver<TurnState>, history_length: Option<usize>) -> Turn {
    Turn {
        state,
        task_id: String::new(),
        events: None,
        first: None,
        history_length,
    }
}

/// Waits until the turn has an answer: settled, or any first one.
pub(super) async fn answer(
    mut turn: watch::Receiver<TurnState>,
    settled: bool,
) -> Result<TurnState, A2aError> {
    let state = turn
        .wait_for(|state| {
            if settled {
                state.settled()
            } else {
                !matches!(state, TurnState::Pending)
            }
        })
        .await
        .map_err(|_| A2aError::internal("the turn ended without an answer"))?;
    Ok(state.clone())
}
