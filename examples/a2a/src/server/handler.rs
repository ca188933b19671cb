//! The request handler: the [`A2a`] methods over an agent and a task store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::{self, BoxStream, Stream, StreamExt};
use tokio::sync::{broadcast, mpsc, watch};
use typed_rpc::{Context, ErrorObject, RpcResult};

use super::dedup::{DEFAULT_MAX_AGE, DEFAULT_MAX_MESSAGES, SeenMessages};
use super::executor::{AgentEvent, AgentExecutor, Caller, EventSink, RequestContext};
use super::live::{LiveState, LiveTask, TurnState, drive_turn};
use super::notifier::PushNotifier;
use super::push::PushSettings;
use super::push_sender::PushSender;
use super::push_store::PushConfigStore;
use super::store::{StoreError, TaskQuery, TaskStore};
use super::{BearerAuth, new_id, now};
use crate::api::A2a;
use crate::error::A2aError;
use crate::types::*;

/// Events an agent may publish ahead of the handler storing them.
const AGENT_BACKLOG: usize = 16;

/// The page size of `ListTasks` when the caller gives none, and the most it may ask for.
const DEFAULT_PAGE_SIZE: u32 = 50;
const MAX_PAGE_SIZE: u32 = 100;

/// Serves the A2A methods for the agent `E`, keeping tasks in `S`.
pub struct RequestHandler<E, S> {
    shared: Arc<Shared<E, S>>,
    /// The public card; its capabilities follow what the handler is given.
    card: Arc<AgentCard>,
    /// The card `GetExtendedAgentCard` answers an authenticated caller.
    extended_card: Option<Arc<AgentCard>>,
    /// The push store and sender, when the handler pushes notifications.
    push: Option<Arc<PushNotifier>>,
    auth: Option<Arc<BearerAuth>>,
    deduplicate: bool,
}

impl<E, S> Clone for RequestHandler<E, S> {
    fn clone(&self) -> Self {
        RequestHandler {
            shared: self.shared.clone(),
            card: self.card.clone(),
            extended_card: self.extended_card.clone(),
            push: self.push.clone(),
            auth: self.auth.clone(),
            deduplicate: self.deduplicate,
        }
    }
}

struct Shared<E, S> {
    agent: Arc<E>,
    store: Arc<S>,
    /// Tasks worked on in this process, by id.
    live: Mutex<HashMap<String, Arc<LiveTask>>>,
    /// The turn each recent message started, by caller and `messageId`, so
    /// a retry joins it instead of starting the work again.
    sent: Mutex<SeenMessages>,
}

impl<E: AgentExecutor, S: TaskStore> RequestHandler<E, S> {
    /// A handler for `agent`, storing tasks in `store`, describing itself
    /// with `card`, whose `pushNotifications` and `extendedAgentCard` are
    /// set to what the handler is then given (false until it is).
    pub fn new(agent: E, store: S, mut card: AgentCard) -> Self {
        card.capabilities.push_notifications = Some(false);
        card.capabilities.extended_agent_card = Some(false);
        RequestHandler {
            card: Arc::new(card),
            extended_card: None,
            push: None,
            shared: Arc::new(Shared {
                agent: Arc::new(agent),
                store: Arc::new(store),
                live: Mutex::default(),
                sent: Mutex::new(SeenMessages::new(DEFAULT_MAX_MESSAGES, DEFAULT_MAX_AGE)),
            }),
            auth: None,
            deduplicate: true,
        }
    }

    /// Names the caller in each [`RequestContext`] from its bearer token.
    /// (Refusing callers without a good token is the HTTP layer's job.)
    pub fn with_auth(mut self, auth: BearerAuth) -> Self {
        self.auth = Some(Arc::new(auth));
        self
    }

    /// Whether a `messageId` seen before is answered from its first turn
    /// (the default) or starts new work like any message. Off only for
    /// clients that reuse ids for new requests, as the A2A TCK does (one id
    /// per scenario for a whole run).
    pub fn deduplicate_messages(mut self, on: bool) -> Self {
        self.deduplicate = on;
        self
    }

    /// How many messages, and for how long, a `messageId` is remembered for
    /// de-duplication (by default 10 000 and 10 minutes; the oldest are
    /// forgotten first). A retry arriving after its message was forgotten
    /// starts new work.
    pub fn deduplication_window(self, max_messages: usize, max_age: Duration) -> Self {
        *self.shared.sent.lock().expect("sent map poisoned") =
            SeenMessages::new(max_messages, max_age);
        self
    }

    /// Answers `GetExtendedAgentCard` with `card` to authenticated callers,
    /// and says so in the public card (`capabilities.extendedAgentCard`).
    /// It takes a [`BearerAuth`] ([`Self::with_auth`], or the one given to
    /// [`crate::http::app`]): without one, no caller is authenticated and the
    /// method answers `-32007`.
    pub fn with_extended_card(mut self, card: AgentCard) -> Self {
        Arc::make_mut(&mut self.card)
            .capabilities
            .extended_agent_card = Some(true);
        self.extended_card = Some(Arc::new(card));
        self
    }

    /// Pushes every task update to the webhooks callers configure (the
    /// four `*TaskPushNotificationConfig*` methods, or inline in
    /// `SendMessage`), kept in `store` and delivered as `settings` say; the
    /// public card then says `pushNotifications: true`. Without it those
    /// methods answer `-32003`. Set it before serving: tasks already live
    /// keep pushing (or not) as they started.
    pub fn with_push_notifications(
        mut self,
        store: impl PushConfigStore,
        settings: PushSettings,
    ) -> Self {
        Arc::make_mut(&mut self.card)
            .capabilities
            .push_notifications = Some(true);
        self.push = Some(Arc::new(PushNotifier {
            configs: Arc::new(store),
            sender: PushSender::new(settings),
        }));
        self
    }

    /// The card the handler serves.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    fn caller(&self, cx: &Context) -> Option<Caller> {
        let auth = self.auth.as_ref()?;
        let header = cx.headers()?.get("authorization")?.to_str().ok();
        auth.identify(header)
    }

    /// The push notifier, or `-32003` when the handler pushes nothing.
    fn pusher(&self) -> Result<&PushNotifier, A2aError> {
        self.push
            .as_deref()
            .ok_or_else(A2aError::push_notification_not_supported)
    }

    /// `config` with an id (a new one unless given), when its webhook is
    /// one the push settings take; `-32602` naming the member otherwise.
    fn checked_webhook(
        &self,
        mut config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let push = self.pusher()?;
        if let Some((member, reason)) = push.sender.settings().refusal(&config) {
            return Err(A2aError::invalid_params(member, &reason));
        }
        if config.id.as_deref().is_none_or(str::is_empty) {
            config.id = Some(new_id());
        }
        Ok(config)
    }

    /// Who `cx`'s caller is as an owner of tasks: `""` without authentication.
    fn owner(&self, cx: &Context) -> String {
        self.caller(cx)
            .map(|caller| caller.name)
            .unwrap_or_default()
    }

    /// The task `id`, when `owner` owns it; another's is `-32001` as an
    /// unknown one is, so ids do not leak between callers.
    async fn load(&self, id: &str, owner: &str) -> Result<Task, A2aError> {
        self.shared
            .store
            .load(id, owner)
            .await
            .map_err(store_failed)?
            .ok_or_else(|| A2aError::task_not_found(id))
    }

    /// The live task of `id` when `owner` owns it, made live from the
    /// store when this process has not worked on it yet. A task that has
    /// ended is read from the store and not kept live: nothing more happens
    /// to it.
    async fn live(&self, id: &str, owner: &str) -> Result<Arc<LiveTask>, A2aError> {
        let found = self
            .shared
            .live
            .lock()
            .expect("live map poisoned")
            .get(id)
            .cloned();
        if let Some(live) = found {
            if live.state.lock().await.owner != owner {
                return Err(A2aError::task_not_found(id));
            }
            return Ok(live);
        }
        let task = self.load(id, owner).await?;
        let push = self.push.clone();
        let make =
            |task: Task| LiveTask::new(task.clone(), owner.to_owned(), push, TurnState::Task(task));
        if task.status.state.is_terminal() {
            return Ok(make(task));
        }
        let mut map = self.shared.live.lock().expect("live map poisoned");
        let live = map.entry(id.to_owned()).or_insert_with(|| make(task));
        Ok(live.clone())
    }

    /// Starts the turn for `request`, or finds the one a retry of its
    /// message started. Returns the turn's state and, for streams, a
    /// subscription taken before the turn's first event.
    async fn send(
        &self,
        cx: &Context,
        request: SendMessageRequest,
        subscribe: bool,
    ) -> Result<Turn, A2aError> {
        check_version(cx)?;
        let caller = self.caller(cx);
        let owner = caller.as_ref().map(|c| c.name.clone()).unwrap_or_default();
        let key = (owner, request.message.message_id.clone());
        let webhook = request
            .configuration
            .and_then(|c| c.task_push_notification_config)
            .map(|config| self.checked_webhook(config))
            .transpose()?;
        let message = request.message;
        if message.task_id.is_none() {
            // Looked up and claimed under one lock, so two copies of a new
            // message arriving at once start one turn.
            let mut sent = self.shared.sent.lock().expect("sent map poisoned");
            if let Some(turn) = sent.get(&key).filter(|_| self.deduplicate) {
                return Ok(Turn::retried(turn));
            }
            let turn = self.start_task(message, caller, webhook, subscribe);
            if self.deduplicate {
                sent.insert(key, turn.state.clone());
            }
            return Ok(turn);
        }
        if self.deduplicate {
            let mut sent = self.shared.sent.lock().expect("sent map poisoned");
            if let Some(turn) = sent.get(&key) {
                return Ok(Turn::retried(turn));
            }
        }
        let task_id = message.task_id.clone().unwrap_or_default();
        let turn = self
            .continue_task(&task_id, message, caller, webhook, subscribe)
            .await?;
        if self.deduplicate {
            let mut sent = self.shared.sent.lock().expect("sent map poisoned");
            sent.insert(key, turn.state.clone());
        }
        Ok(turn)
    }

    /// Starts a new task for `message`, pushing its updates to `webhook`
    /// too when given (a `SendMessage` configuration's).
    fn start_task(
        &self,
        mut message: Message,
        caller: Option<Caller>,
        webhook: Option<TaskPushNotificationConfig>,
        subscribe: bool,
    ) -> Turn {
        let task_id = new_id();
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
        let owner = caller.as_ref().map(|c| c.name.clone()).unwrap_or_default();
        let live = LiveTask::new(task, owner, self.push.clone(), TurnState::Pending);
        let events = subscribe.then(|| live.events.subscribe());
        let request = RequestContext {
            message,
            task_id,
            context_id,
            task: None,
            caller,
        };
        let mut state = live.state.try_lock().expect("a new task is not shared yet");
        let webhook = webhook.map(|config| TaskPushNotificationConfig {
            task_id: Some(state.task.id.clone()),
            ..config
        });
        let turn = self.run_turn(&mut state, live.clone(), request, Starts::NewTask(webhook));
        drop(state);
        Turn {
            state: turn,
            events,
            first: None,
        }
    }

    async fn continue_task(
        &self,
        task_id: &str,
        mut message: Message,
        caller: Option<Caller>,
        webhook: Option<TaskPushNotificationConfig>,
        subscribe: bool,
    ) -> Result<Turn, A2aError> {
        let owner = caller.as_ref().map(|c| c.name.clone()).unwrap_or_default();
        let live = self.live(task_id, &owner).await?;
        let mut state = live.state.lock().await;
        let task_state = state.task.status.state;
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
            .is_some_and(|c| *c != state.task.context_id)
        {
            return Err(A2aError::invalid_params(
                "message.contextId",
                "not the contextId of the task the message continues",
            ));
        }
        if let Some(config) = webhook {
            let config = TaskPushNotificationConfig {
                task_id: Some(task_id.to_owned()),
                ..config
            };
            self.pusher()?.keep(config).await?;
        }
        let waiting = state.task.clone();
        message.context_id = Some(state.task.context_id.clone());
        state
            .task
            .history
            .get_or_insert_with(Vec::new)
            .push(message.clone());
        state.turn.send_replace(TurnState::Pending);
        let store = &*self.shared.store;
        state
            .set_status(store, &live.events, TaskState::Submitted, None)
            .await?;
        let first = subscribe.then(|| StreamResponse::Task(state.task.clone()));
        let events = subscribe.then(|| live.events.subscribe());
        let request = RequestContext {
            message,
            task_id: task_id.to_owned(),
            context_id: state.task.context_id.clone(),
            task: Some(waiting),
            caller,
        };
        let turn = self.run_turn(&mut state, live.clone(), request, Starts::NextTurn);
        Ok(Turn {
            state: turn,
            events,
            first,
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
        let task_id = state.task.id.clone();
        let (register, webhook) = match starts {
            Starts::NewTask(webhook) => {
                let register = move |live: Arc<LiveTask>| {
                    let mut map = shared.live.lock().expect("live map poisoned");
                    map.insert(task_id, live);
                };
                (Some(register), webhook)
            }
            Starts::NextTurn => (None, None),
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
            drive_turn(store, live.clone(), receiver, register).await;
            let replied = matches!(
                *live.state.lock().await.turn.borrow(),
                TurnState::Replied(_)
            );
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

impl<E, S> Shared<E, S> {
    /// Forgets `live` once its task has ended; the store still has it.
    async fn retire(&self, live: &LiveTask) {
        let task = &live.state.lock().await.task;
        if task.status.state.is_terminal() {
            self.live
                .lock()
                .expect("live map poisoned")
                .remove(&task.id);
        }
    }
}

/// What a turn starts.
enum Starts {
    /// A new task, with the webhook its message configures, if any.
    NewTask(Option<TaskPushNotificationConfig>),
    /// The next turn of a task that waited for input.
    NextTurn,
}

/// A turn as `SendMessage` sees it.
struct Turn {
    state: watch::Receiver<TurnState>,
    /// The live events, for a stream.
    events: Option<broadcast::Receiver<StreamResponse>>,
    /// The event a stream starts with, when not the first broadcast one.
    first: Option<StreamResponse>,
}

impl Turn {
    /// The turn a retried message joins: no subscription of its own yet.
    fn retried(state: watch::Receiver<TurnState>) -> Self {
        Turn {
            state,
            events: None,
            first: None,
        }
    }
}

/// Waits until the turn has an answer: settled, or any first one.
async fn answer(
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

/// The events of `events` from `first` on, up to the first one `ends` is true of.
fn event_stream(
    first: Option<StreamResponse>,
    events: broadcast::Receiver<StreamResponse>,
    ends: fn(&StreamResponse) -> bool,
) -> BoxStream<'static, RpcResult<StreamResponse>> {
    let ended = first.as_ref().is_some_and(ends);
    let live = stream::unfold((events, ended), move |(mut events, ended)| async move {
        if ended {
            return None;
        }
        match events.recv().await {
            Ok(event) => {
                let last = ends(&event);
                Some((Ok(event), (events, last)))
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let error =
                    ErrorObject::from(A2aError::internal("the stream fell behind the task"));
                Some((Err(error), (events, true)))
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    });
    stream::iter(first.map(Ok)).chain(live).boxed()
}

/// `A2A-Version` must be 1.0 when given. A request without it is served
/// as 1.0: the methods here are 1.0's names, which no 0.3 client calls.
fn check_version(cx: &Context) -> Result<(), A2aError> {
    let Some(value) = cx.headers().and_then(|h| h.get("a2a-version")) else {
        return Ok(());
    };
    let version = value.to_str().unwrap_or("").trim();
    let mut numbers = version.split('.');
    match (numbers.next(), numbers.next()) {
        (Some("1"), Some("0")) | (Some("1"), None) => Ok(()),
        _ => Err(A2aError::version_not_supported(version)),
    }
}

fn store_failed(err: StoreError) -> A2aError {
    match err {
        StoreError::InvalidPageToken => {
            A2aError::invalid_params("pageToken", "not a token this server gave out")
        }
        err => A2aError::internal(&err.to_string()),
    }
}

impl<E: AgentExecutor, S: TaskStore> A2a for RequestHandler<E, S> {
    async fn send_message(
        &self,
        cx: &Context,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, A2aError> {
        let configuration = request.configuration.clone().unwrap_or_default();
        let turn = self.send(cx, request, false).await?;
        match answer(turn.state, !configuration.return_immediately).await? {
            TurnState::Replied(message) => Ok(SendMessageResponse::Message(message)),
            TurnState::Task(task) => Ok(SendMessageResponse::Task(
                task.with_history_length(configuration.history_length),
            )),
            TurnState::Pending => Err(A2aError::internal("the turn ended without an answer")),
        }
    }

    async fn send_streaming_message(
        &self,
        cx: &Context,
        request: SendMessageRequest,
    ) -> RpcResult<impl Stream<Item = RpcResult<StreamResponse>> + Send + 'static> {
        let turn = self.send(cx, request, true).await?;
        match turn.events {
            Some(events) => Ok(event_stream(
                turn.first,
                events,
                StreamResponse::ends_stream,
            )),
            // A retried message: its turn's answer so far, then what is still to come.
            None => match answer(turn.state, false).await? {
                TurnState::Replied(message) => {
                    Ok(stream::iter([Ok(StreamResponse::Message(message))]).boxed())
                }
                TurnState::Task(task) => Ok(self.follow(&task.id, &self.owner(cx), true).await?),
                TurnState::Pending => {
                    Err(A2aError::internal("the turn ended without an answer").into())
                }
            },
        }
    }

    async fn get_task(&self, cx: &Context, request: GetTaskRequest) -> Result<Task, A2aError> {
        check_version(cx)?;
        Ok(self
            .load(&request.id, &self.owner(cx))
            .await?
            .with_history_length(request.history_length))
    }

    async fn list_tasks(
        &self,
        cx: &Context,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, A2aError> {
        check_version(cx)?;
        let page_size = match request.page_size {
            None | Some(0) => DEFAULT_PAGE_SIZE,
            Some(size) => size.min(MAX_PAGE_SIZE),
        };
        let status_after = match &request.status_timestamp_after {
            None => None,
            Some(stamp) => Some(
                time::OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339)
                    .map_err(|_| {
                        A2aError::invalid_params(
                            "statusTimestampAfter",
                            "not an ISO-8601 timestamp",
                        )
                    })?,
            ),
        };
        let query = TaskQuery {
            owner: self.owner(cx),
            context_id: request.context_id.filter(|c| !c.is_empty()),
            state: request.status.filter(|s| *s != TaskState::Unspecified),
            status_after,
            page_size: page_size as usize,
            page_token: request.page_token.filter(|t| !t.is_empty()),
        };
        let page = self.shared.store.list(&query).await.map_err(store_failed)?;
        let include_artifacts = request.include_artifacts.unwrap_or(false);
        let tasks = page
            .tasks
            .into_iter()
            .map(|mut task| {
                if !include_artifacts {
                    task.artifacts = None;
                }
                task.with_history_length(request.history_length)
            })
            .collect();
        Ok(ListTasksResponse {
            tasks,
            next_page_token: page.next_page_token.unwrap_or_default(),
            page_size,
            total_size: u32::try_from(page.total_size).unwrap_or(u32::MAX),
        })
    }

    async fn cancel_task(
        &self,
        cx: &Context,
        request: CancelTaskRequest,
    ) -> Result<Task, A2aError> {
        check_version(cx)?;
        let live = self.live(&request.id, &self.owner(cx)).await?;
        let task = live.state.lock().await.task.clone();
        if task.status.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(&request.id));
        }
        self.shared.agent.cancel(&task).await;
        let mut state = live.state.lock().await;
        if state.task.status.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(&request.id));
        }
        if let Some(running) = state.running.take() {
            running.abort();
        }
        state
            .set_status(&*self.shared.store, &live.events, TaskState::Canceled, None)
            .await?;
        Ok(state.task.clone())
    }

    async fn subscribe_to_task(
        &self,
        cx: &Context,
        request: SubscribeToTaskRequest,
    ) -> RpcResult<impl Stream<Item = RpcResult<StreamResponse>> + Send + 'static> {
        check_version(cx)?;
        Ok(self.follow(&request.id, &self.owner(cx), false).await?)
    }

    async fn create_task_push_notification_config(
        &self,
        cx: &Context,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        check_version(cx)?;
        let push = self.pusher()?;
        let Some(task_id) = config.task_id.clone().filter(|id| !id.is_empty()) else {
            return Err(A2aError::invalid_params("taskId", "the task is required"));
        };
        let live = self.live(&task_id, &self.owner(cx)).await?;
        let config = self.checked_webhook(config)?;
        // Under the task's lock, as its updates are pushed: the webhook gets
        // every update after this one, whole.
        let _state = live.state.lock().await;
        push.keep(config.clone()).await?;
        Ok(config)
    }

    async fn get_task_push_notification_config(
        &self,
        cx: &Context,
        request: TaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        check_version(cx)?;
        let push = self.pusher()?;
        self.load(&request.task_id, &self.owner(cx)).await?;
        push.configs
            .get(&request.task_id, &request.id)
            .await
            .map_err(store_failed)?
            // The specification's answer to a configuration that is not there.
            .ok_or_else(|| A2aError::task_not_found(&request.task_id))
    }

    async fn list_task_push_notification_configs(
        &self,
        cx: &Context,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError> {
        check_version(cx)?;
        let push = self.pusher()?;
        self.load(&request.task_id, &self.owner(cx)).await?;
        // One page always holds them all: a task has at most MAX_CONFIGS_PER_TASK.
        let configs = push
            .configs
            .list(&request.task_id)
            .await
            .map_err(store_failed)?;
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: String::new(),
        })
    }

    async fn delete_task_push_notification_config(
        &self,
        cx: &Context,
        request: TaskPushNotificationConfigRequest,
    ) -> Result<serde_json::Value, A2aError> {
        check_version(cx)?;
        let push = self.pusher()?;
        let live = self.live(&request.task_id, &self.owner(cx)).await?;
        // Under the task's lock, as its updates are pushed: once this
        // answers, no update goes to the webhook, not even one on its way.
        let _state = live.state.lock().await;
        push.configs
            .delete(&request.task_id, &request.id)
            .await
            .map_err(store_failed)?;
        push.sender.forget(&request.task_id, &request.id);
        Ok(serde_json::Value::Object(serde_json::Map::new()))
    }

    async fn get_extended_agent_card(
        &self,
        cx: &Context,
        _request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2aError> {
        check_version(cx)?;
        let Some(card) = &self.extended_card else {
            // The card says `extendedAgentCard: false`: the specification's
            // answer to a method the agent does not offer.
            return Err(A2aError::unsupported_operation(
                "this agent has no extended card",
            ));
        };
        if self.caller(cx).is_none() {
            return Err(A2aError::extended_agent_card_not_configured());
        }
        let mut card = AgentCard::clone(card);
        // What the handler does is the same whichever card describes it.
        card.capabilities = self.card.capabilities.clone();
        Ok(card)
    }
}

impl<E: AgentExecutor, S: TaskStore> RequestHandler<E, S> {
    /// The task's stream from now on: the task as it stands, then its
    /// events, until the task ends; for a `retry` of a streamed message,
    /// until its turn ends. A task that has ended is refused (`-32004`),
    /// except to a retry, which gets it as one event.
    async fn follow(
        &self,
        id: &str,
        owner: &str,
        retry: bool,
    ) -> Result<BoxStream<'static, RpcResult<StreamResponse>>, A2aError> {
        let live = self.live(id, owner).await?;
        let state = live.state.lock().await;
        if state.task.status.state.is_terminal() && !retry {
            return Err(A2aError::unsupported_operation(
                "the task has ended; there is nothing to subscribe to",
            ));
        }
        let events = live.events.subscribe();
        // A retry follows its turn, a subscriber the whole task.
        let ends = if retry {
            StreamResponse::ends_stream
        } else {
            StreamResponse::ends_task
        };
        Ok(event_stream(
            Some(StreamResponse::Task(state.task.clone())),
            events,
            ends,
        ))
    }
}
