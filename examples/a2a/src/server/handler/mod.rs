//! The request handler: the [`A2a`] methods over an agent and a task
//! store, and the router that serves them behind the binding's call layers.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`RequestHandler`]: how it is set up, and what its methods share |
//! | `send.rs` | `SendMessage` and `SendStreamingMessage`: turns started, continued, retried |
//! | `retry.rs` | the turn a retried message joins, here or elsewhere |
//! | `methods.rs` | the [`A2a`] methods |
//! | `remote.rs` | other processes' events on this process's live tasks |

mod methods;
mod remote;
mod retry;
mod send;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use typed_rpc::{BuildError, Context, Router};

use super::auth::{BearerAuth, Caller};
use super::dedup::{DEFAULT_MAX_AGE, DEFAULT_MAX_MESSAGES, SeenMessages};
use super::limits::TaskLimits;
use super::live::{LiveSettings, LiveState, LiveTask};
use super::modes::Modes;
use super::notifier::PushNotifier;
use super::outage::OUTAGE_PATIENCE;
use super::protocol::ProtocolLayer;
use super::push::PushSettings;
use super::push_sender::PushSender;
use super::push_store::{DynPushConfigStore, PushConfigStore};
use super::store::{Snapshot, TaskStore, TaskView};
use super::{AgentExecutor, new_id};
use crate::api::A2a;
use crate::error::A2aError;
use crate::types::*;

/// Serves the A2A methods for the agent `E`, keeping tasks in `S`.
///
/// [`router`](Self::router) makes the JSON-RPC router that serves it (which
/// [`crate::http::app`] mounts): batches refused, and in front of the
/// handler the call layers of [`BearerAuth`] (with
/// [`with_auth`](Self::with_auth)) and of the binding's rules:
///
/// - `A2A-Version` must be 1.0 (`-32009` otherwise). A request without it
///   speaks 0.3, as the specification says, and is refused the same way,
///   with the supported versions in `data`; [`lenient_version`](Self::lenient_version)
///   serves such requests as 1.0 instead.
/// - Params are named: an array is refused `-32602`.
/// - `A2A-Extensions` lists the extensions a request uses: those the card
///   declares (`capabilities.extensions`) are in force for the call
///   ([`RequestContext::extensions`](super::RequestContext::extensions),
///   [`ActiveExtensions`](super::ActiveExtensions)); a request without one
///   the card marks `required` is refused `-32008`.
pub struct RequestHandler<E, S> {
    shared: Arc<Shared<E, S>>,
    /// The public card; its capabilities follow what the handler is given.
    card: Arc<AgentCard>,
    /// The card `GetExtendedAgentCard` answers an authenticated caller.
    extended_card: Option<Arc<AgentCard>>,
    /// The push store and sender, when the handler pushes notifications.
    push: Option<Arc<PushNotifier>>,
    auth: Option<BearerAuth>,
    deduplicate: bool,
    lenient_version: bool,
    limits: TaskLimits,
    /// How long a turn's event waits for an unreachable store.
    outage_patience: Duration,
    modes: Arc<Modes>,
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
            lenient_version: self.lenient_version,
            limits: self.limits,
            outage_patience: self.outage_patience,
            modes: self.modes.clone(),
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
    ///
    /// A store shared with other processes ([`TaskStore::notices`]) has its
    /// news heard from here on, when called within a Tokio runtime.
    pub fn new(agent: E, store: S, mut card: AgentCard) -> Self {
        card.capabilities.push_notifications = Some(false);
        card.capabilities.extended_agent_card = Some(false);
        let handler = RequestHandler {
            modes: Arc::new(Modes::of(&card)),
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
            lenient_version: false,
            limits: TaskLimits::default(),
            outage_patience: OUTAGE_PATIENCE,
        };
        remote::hear(&handler.shared);
        handler
    }

    /// Authenticates callers with `auth`: its call layer names the caller
    /// of each call ([`Caller::of`]), whom the executor sees as
    /// [`RequestContext::caller`](super::RequestContext::caller), and
    /// refuses a call without one of its tokens. ([`crate::http::app`]
    /// calls it with the app's `auth`.)
    pub fn with_auth(mut self, auth: BearerAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Whether a request without `A2A-Version` is served as 1.0 (`true`)
    /// or read as 0.3 and refused `-32009` (`false`, the default, as the
    /// specification asks). For clients that predate the header and speak
    /// 1.0's method names anyway.
    pub fn lenient_version(mut self, on: bool) -> Self {
        self.lenient_version = on;
        self
    }

    /// How much content a message may carry and a task may hold
    /// (2 MiB and 16 MiB by default; see [`TaskLimits`]).
    pub fn limits(mut self, limits: TaskLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How long a running turn waits, per event, for a task store that
    /// cannot be reached (30 s by default) before it abandons the turn:
    /// the agent is stopped, and once the store is back the task is failed
    /// with a status message saying the store was unreachable. Calls made
    /// meanwhile answer as unavailable (retryable) at once.
    pub fn outage_patience(mut self, patience: Duration) -> Self {
        self.outage_patience = patience;
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
    /// starts new work. This is the window of this process's memory; a store
    /// that keeps messages itself for all replicas
    /// ([`TaskStore::claim_message`]) has its own (`SqlOptions::dedup_window`).
    pub fn deduplication_window(self, max_messages: usize, max_age: Duration) -> Self {
        *self.shared.sent.lock().expect("sent map poisoned") =
            SeenMessages::new(max_messages, max_age);
        self
    }

    /// Answers `GetExtendedAgentCard` with `card`, and says so in the
    /// public card (`capabilities.extendedAgentCard`). Who may call the
    /// method is the authentication's choice, as for every method: with a
    /// [`BearerAuth`] only its callers; without one, every caller (as the
    /// reference SDK does), so give an agent that has something to hide in
    /// its extended card a `BearerAuth`.
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
    /// keep pushing (or not) as they started. A store with an outbox that
    /// other processes share ([`PushConfigStore::take_over`]) has the
    /// updates of processes that died delivered from here, when this is
    /// called within a Tokio runtime.
    pub fn with_push_notifications(
        mut self,
        store: impl PushConfigStore,
        settings: PushSettings,
    ) -> Self {
        Arc::make_mut(&mut self.card)
            .capabilities
            .push_notifications = Some(true);
        let configs: Arc<dyn DynPushConfigStore> = Arc::new(store);
        let notifier = Arc::new(PushNotifier {
            sender: PushSender::new(settings, configs.clone()),
            configs,
        });
        PushNotifier::start_takeover(&notifier);
        self.push = Some(notifier);
        self
    }

    /// The card the handler serves.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// The JSON-RPC router serving the handler: batches refused (A2A has
    /// none; one `-32600`), the [`BearerAuth`] layer when the handler has
    /// one, then the binding's rules (see [`RequestHandler`]).
    pub fn router(self) -> Result<Router, BuildError> {
        let rules = ProtocolLayer {
            lenient_version: self.lenient_version,
            extensions: self.card.capabilities.extensions.clone(),
        };
        let auth = self.auth.clone();
        let mut router = Router::builder()
            .service(self.into_service())
            .max_batch_len(0);
        if let Some(auth) = auth {
            router = router.layer(auth);
        }
        router.layer(rules).build()
    }

    /// What every live task of this handler shares.
    fn live_settings(&self) -> LiveSettings {
        LiveSettings {
            push: self.push.clone(),
            max_task_size: self.limits.max_task_bytes,
            outage_patience: self.outage_patience,
        }
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
        if let Some((member, reason)) = push.sender.refusal(&config) {
            return Err(A2aError::invalid_params(member, &reason));
        }
        if config.id.as_deref().is_none_or(str::is_empty) {
            config.id = Some(new_id());
        }
        Ok(config)
    }

    /// The task `id` as `view` asks, when `owner` owns it; another's is
    /// `-32001` as an unknown one is, so ids do not leak between callers.
    async fn load(&self, id: &str, owner: &str, view: TaskView) -> Result<Snapshot, A2aError> {
        self.shared
            .store
            .load(id, owner, view)
            .await?
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
            if live.lock().await.owner != owner {
                return Err(A2aError::task_not_found(id));
            }
            return Ok(live);
        }
        let now = self.load(id, owner, TaskView::default()).await?;
        let task = now.task;
        let make = || LiveState::stored(&task, now.seq, owner.to_owned(), &self.live_settings());
        if task.status.state.is_terminal() {
            return Ok(make());
        }
        let mut map = self.shared.live.lock().expect("live map poisoned");
        Ok(map.entry(id.to_owned()).or_insert_with(make).clone())
    }
}

/// Who `cx`'s caller is as an owner of tasks: `""` without authentication.
fn owner(cx: &Context) -> String {
    Caller::of(cx)
        .map(|caller| caller.name.clone())
        .unwrap_or_default()
}

impl<E, S> Shared<E, S> {
    /// Forgets `live` once its task has ended; the store still has it.
    async fn retire(&self, live: &LiveTask) {
        let state = live.lock().await;
        if state.status.state.is_terminal() {
            self.live
                .lock()
                .expect("live map poisoned")
                .remove(&state.id);
        }
    }
}
