//! The router: request text in, response text out.
//!
//! It implements every rule of JSON-RPC 2.0 that does not depend on a
//! transport: single requests, notifications (run, never answered), batches
//! (run concurrently, answered only for requests; nothing at all when every
//! entry is a notification), parse errors, invalid requests and unknown
//! methods. A handler that panics answers `-32603` for its own request and
//! nothing else is disturbed.

mod batch;
mod build_error;
mod guard;

cfg_rt! {
    mod deadline;
}
cfg_not_rt! {
    mod no_deadline;
    use no_deadline as deadline;
}
cfg_schema! {
    mod discover;
}
cfg_not_schema! {
    mod no_discover;
    use no_discover as discover;
}
cfg_duplex! {
    mod from_peer;
    pub(crate) use from_peer::{FromPeer, PeerMessage};
}
cfg_http! {
    mod streaming;
}

use std::collections::HashMap;
use std::fmt;
use std::future::poll_fn;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{self, Poll};

use batch::Outcome;
pub use build_error::BuildError;
use deadline::{Began, Timeout};
use guard::Guarded;

use crate::context::{self, Context};
use crate::middleware::{self, CallLayer, CallRequest, DynLayer, Endpoint, Next};
use crate::service::{Call, HandlerSlot, RpcService};
use crate::wire::{self, Entry, Id, Message, Request};
use crate::{CancelPolicy, ErrorObject, ServiceInfo, Turn};

/// The default limit on the number of entries in a batch.
pub const DEFAULT_MAX_BATCH_LEN: usize = 1024;

/// Dispatches JSON-RPC messages to the methods of one or more services.
///
/// Cheap to clone: clones share the same services.
///
/// ```
/// use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let router = Router::new(Nothing);
/// let reply = router.handle(br#"{"jsonrpc":"2.0","method":"foobar","id":"1"}"#).await;
/// assert_eq!(
///     reply.unwrap(),
///     r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#
/// );
/// // A notification is never answered, even when its method does not exist.
/// assert_eq!(router.handle(br#"{"jsonrpc":"2.0","method":"foobar"}"#).await, None);
/// # });
/// ```
#[derive(Clone)]
pub struct Router {
    inner: Arc<Inner>,
}

struct Inner {
    services: Vec<Box<dyn RpcService>>,
    /// Method name (and alias) to service index; empty with a single service,
    /// which is asked directly.
    routes: HashMap<&'static str, usize>,
    settings: Settings,
    /// How the peer of a two-way connection cancels a request, if it can.
    cancel: Option<Arc<CancelPolicy>>,
    /// The call layers, outermost first.
    layers: Vec<Box<dyn DynLayer>>,
    /// The names (and aliases) of the methods that stream, which the HTTP
    /// server answers with events.
    streaming: Vec<&'static str>,
    /// The methods (names and aliases) that declare their turn on a
    /// two-way connection; empty when none does.
    turns: HashMap<&'static str, &'static Turn>,
    /// The OpenRPC document `rpc.discover` answers with, if asked to.
    discover: Option<discover::Discover>,
}

/// The limits a router enforces, as the builder sets them.
#[derive(Clone, Copy, Debug)]
struct Settings {
    max_batch_len: usize,
    request_timeout: Timeout,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_batch_len: DEFAULT_MAX_BATCH_LEN,
            request_timeout: Timeout::NONE,
        }
    }
}

impl Router {
    /// A router for one service, with default limits.
    pub fn new(service: impl RpcService) -> Self {
        Router::from_parts(
            vec![Box::new(service)],
            HashMap::new(),
            Settings::default(),
            None,
            Vec::new(),
        )
    }

    /// A router with no methods: it answers every request with `-32601`.
    #[cfg(any(feature = "ws", feature = "stream"))]
    pub(crate) fn empty() -> Self {
        Router::from_parts(
            Vec::new(),
            HashMap::new(),
            Settings::default(),
            None,
            Vec::new(),
        )
    }

    fn from_parts(
        services: Vec<Box<dyn RpcService>>,
        routes: HashMap<&'static str, usize>,
        settings: Settings,
        cancel: Option<CancelPolicy>,
        layers: Vec<Box<dyn DynLayer>>,
    ) -> Self {
        let methods = || services.iter().flat_map(|service| service.info().methods());
        let turns = methods()
            .filter(|method| !method.turn_info().is_default())
            .flat_map(|method| method.names().map(move |name| (name, method.turn_info())))
            .collect();
        let streaming = methods()
            .filter(|method| method.stream_info().is_some())
            .flat_map(|method| method.names())
            .collect();
        Router {
            inner: Arc::new(Inner {
                services,
                routes,
                settings,
                cancel: cancel.map(Arc::new),
                layers,
                turns,
                streaming,
                discover: None,
            }),
        }
    }

    /// A builder to merge several services and set limits.
    pub fn builder() -> RouterBuilder {
        RouterBuilder {
            services: Vec::new(),
            settings: Settings::default(),
            cancel: None,
            layers: Vec::new(),
            discover: None,
        }
    }

    /// How the peer of a two-way connection cancels its requests, as
    /// [`RouterBuilder::cancel_notification`] set it.
    pub fn cancel_policy(&self) -> Option<&CancelPolicy> {
        self.inner.cancel.as_deref()
    }

    /// When the peer's messages for `method` run on a two-way connection,
    /// if its method declares it (see [`Turn`]).
    pub fn turn_of(&self, method: &str) -> Option<&'static Turn> {
        self.inner.turns.get(method).copied()
    }

    /// Whether any method declares its turn.
    pub fn declares_turns(&self) -> bool {
        !self.inner.turns.is_empty()
    }

    /// The services this router dispatches to, in the order they were added.
    pub fn services(&self) -> impl Iterator<Item = &'static ServiceInfo> + '_ {
        self.inner.services.iter().map(|s| s.info())
    }

    /// Handles one incoming message (a request, a notification or a batch) and
    /// returns the response text, or `None` when nothing is to be sent back.
    ///
    /// Batch entries run concurrently on the calling task. Handlers that ask
    /// for a [`Context`] see an in-process one; transports call
    /// [`handle_with`](Router::handle_with) instead.
    pub async fn handle(&self, message: &[u8]) -> Option<String> {
        self.handle_with(message, &context::IN_PROCESS).await
    }

    /// Handles one incoming message with what the transport knows about it.
    pub async fn handle_with(&self, message: &[u8], context: &Context) -> Option<String> {
        match wire::parse(message, self.inner.settings.max_batch_len) {
            Ok(Message::Single(entry)) => self.handle_entry(&entry, context).await,
            Ok(Message::Batch(entries)) => self.handle_batch(&entries, context).await,
            Err(error) => Some(wire::failure(None, &error)),
        }
    }

    /// Runs one entry: its handler, started in place, guarded if it waits.
    async fn handle_entry<'a>(&'a self, entry: &Entry<'a>, context: &'a Context) -> Option<String> {
        let mut slot = pin!(HandlerSlot::new());
        // Ready at once: polled once, with the task's context.
        let started =
            poll_fn(|cx| Poll::Ready(self.start(entry, context, false, slot.as_mut(), cx)));
        match started.await {
            Started::Done(reply) => reply,
            Started::Waiting(waiting) => self.guard(slot, waiting).await,
        }
    }

    /// Runs a batch's entries concurrently and joins their replies.
    async fn handle_batch<'a>(
        &'a self,
        entries: &[Entry<'a>],
        context: &'a Context,
    ) -> Option<String> {
        let outcomes = poll_fn(|cx| Poll::Ready(self.start_batch(entries, context, cx)));
        batch::join_batch(outcomes.await).await
    }

    /// Starts every entry of a batch; each handler that waits keeps the slot
    /// it started in, a new one is made for the next.
    fn start_batch<'a>(
        &'a self,
        entries: &[Entry<'a>],
        context: &'a Context,
        cx: &mut task::Context<'_>,
    ) -> Vec<Outcome<'a>> {
        let mut spare = None;
        entries
            .iter()
            .map(|entry| {
                let mut slot = spare.take().unwrap_or_else(|| Box::pin(HandlerSlot::new()));
                match self.start(entry, context, true, slot.as_mut(), cx) {
                    Started::Done(reply) => {
                        spare = Some(slot);
                        Outcome::Done(reply)
                    }
                    Started::Waiting(waiting) => Outcome::Running(self.guard(slot, waiting)),
                }
            })
            .collect()
    }

    /// Starts one entry (of a batch if `batched`): its handler's future
    /// goes in `slot` and is polled once, as most handlers finish without
    /// waiting.
    fn start<'a>(
        &'a self,
        entry: &Entry<'a>,
        context: &'a Context,
        batched: bool,
        mut slot: Pin<&mut HandlerSlot<'a>>,
        cx: &mut task::Context<'_>,
    ) -> Started<'a> {
        let request = match entry {
            Entry::Request(request) => request,
            Entry::Invalid { id, reason, .. } => {
                return Started::Done(Some(wire::failure(*id, &wire::invalid_request(reason))));
            }
        };
        let waiting = Waiting {
            id: request.id(),
            began: self.inner.settings.request_timeout.begin(),
        };
        // A handler may panic before it returns its future (a plain `fn`
        // impl, a `Deserialize` impl) or as it first runs: either is its own
        // request's `-32603`. The slot, still holding a future that
        // panicked, is never polled again.
        let first = catch_unwind(AssertUnwindSafe(|| {
            self.dispatch(request, context, batched, slot.as_mut(), cx)
        }));
        match first {
            Ok(Some(Poll::Ready(reply))) => Started::Done(reply),
            Ok(Some(Poll::Pending)) => Started::Waiting(waiting),
            Ok(None) => Started::Done(
                waiting
                    .id
                    .map(|id| wire::failure(Some(id), &ErrorObject::method_not_found())),
            ),
            Err(panic) => Started::Done(guard::panicked(waiting.id, &*panic)),
        }
    }

    /// Watches a waiting handler for panics and, if set, the request timeout.
    fn guard<'a, F>(&self, future: F, waiting: Waiting<'a>) -> Guarded<'a, F> {
        Guarded::new(future, waiting.id, self.deadline(waiting.began))
    }

    /// Puts the handler's future for `request` in `slot`, inside the call
    /// layers and the call's span if there are any, and polls it once;
    /// `None` if no service has the method and nothing wraps the call.
    fn dispatch<'a>(
        &'a self,
        request: &Request<'a>,
        context: &'a Context,
        batched: bool,
        slot: Pin<&mut HandlerSlot<'a>>,
        cx: &mut task::Context<'_>,
    ) -> Option<Poll<Option<String>>> {
        let layered = !self.inner.layers.is_empty() || middleware::span::wanted();
        if let Some(reply) = discover::answer(&self.inner, request) {
            return Some(match layered {
                false => Poll::Ready(reply),
                true => {
                    self.start_layered(request, context, batched, Endpoint::Router(reply), slot, cx)
                }
            });
        }
        let service = self.service_for(request.method());
        if !layered {
            let call = Call::new(request.params(), request.id(), context, batched);
            return service?.call_in(request.method(), call, slot, cx);
        }
        let endpoint = Endpoint::Service(service);
        Some(self.start_layered(request, context, batched, endpoint, slot, cx))
    }

    /// [`dispatch`](Router::dispatch) through the call layers and the
    /// call's span: the whole stack's future goes in `slot`.
    fn start_layered<'a>(
        &'a self,
        request: &Request<'a>,
        context: &'a Context,
        batched: bool,
        endpoint: Endpoint<'a>,
        slot: Pin<&mut HandlerSlot<'a>>,
        cx: &mut task::Context<'_>,
    ) -> Poll<Option<String>> {
        let request = CallRequest::new(
            request.method_text(),
            request.params(),
            request.id(),
            context,
            batched,
        );
        let span = middleware::span::of_call(&request);
        let stack = Next::new(&self.inner.layers, endpoint).run(request);
        slot.start(
            async move { middleware::span::run(span, stack).await.into_text() },
            cx,
        )
    }

    /// The service that has `method`; with a single service, that one, which
    /// answers for itself whether it has it.
    fn service_for(&self, method: &str) -> Option<&dyn RpcService> {
        let services = &self.inner.services;
        let service = match services.as_slice() {
            [only] => only,
            _ => &services[*self.inner.routes.get(method)?],
        };
        Some(&**service)
    }
}

/// An entry once started.
enum Started<'a> {
    /// Its reply (if any) is at hand.
    Done(Option<String>),
    /// Its handler waits.
    Waiting(Waiting<'a>),
}

/// What the guard of a waiting handler needs.
struct Waiting<'a> {
    id: Option<Id<'a>>,
    /// When the handler started, if there is a request timeout.
    began: Option<Began>,
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Router")
            .field(
                "services",
                &self.services().map(ServiceInfo::name).collect::<Vec<_>>(),
            )
            .field("settings", &self.inner.settings)
            .field("streaming", &self.inner.streaming)
            .field("layers", &self.inner.layers.len())
            .finish()
    }
}

/// Builds a [`Router`] from several services.
///
/// ```
/// use typed_rpc::{Call, HandlerFuture, MethodInfo, Router, RpcService, ServiceInfo};
/// # struct Svc(&'static ServiceInfo);
/// # impl RpcService for Svc {
/// #     fn info(&self) -> &'static ServiceInfo { self.0 }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
/// static A: ServiceInfo = ServiceInfo::new("A", &[MethodInfo::method("ping")]);
/// static B: ServiceInfo = ServiceInfo::new("B", &[MethodInfo::method("ping")]);
///
/// let err = Router::builder().service(Svc(&A)).service(Svc(&B)).build().unwrap_err();
/// assert_eq!(err.to_string(), "method `ping` is defined by both `A` and `B`");
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct RouterBuilder {
    services: Vec<Box<dyn RpcService>>,
    settings: Settings,
    cancel: Option<CancelPolicy>,
    layers: Vec<Box<dyn DynLayer>>,
    discover: Option<discover::DiscoverInfo>,
}

impl RouterBuilder {
    /// Adds a service. Its method names must not clash with those of the
    /// services already added.
    pub fn service(mut self, service: impl RpcService) -> Self {
        self.services.push(Box::new(service));
        self
    }

    /// Wraps every call in `layer` (see [`middleware`](crate::middleware)):
    /// each request, each notification, each entry of a batch, on every
    /// transport. Layers nest in the order they are added: the first is
    /// the outermost, seeing each call first and its reply last.
    pub fn layer(mut self, layer: impl CallLayer) -> Self {
        self.layers.push(Box::new(layer));
        self
    }

    /// Sets the most entries a batch may hold (default
    /// [`DEFAULT_MAX_BATCH_LEN`]). A longer batch is refused as a whole with
    /// one `-32600` error whose `data` gives the limit.
    pub fn max_batch_len(mut self, max: usize) -> Self {
        self.settings.max_batch_len = max;
        self
    }

    /// Lets the peer of a two-way connection (WebSocket, TCP, stdio) cancel
    /// its requests with the notification `policy` names (default: none,
    /// and such a notification goes to the services like any other).
    ///
    /// A cancel notification is acted on as it arrives, ahead of the
    /// notifications queued before it, and never reaches the services.
    /// The handler of a cancelled request that is still running is dropped
    /// (its `Drop` runs, its place among the connection's requests in
    /// flight is freed), its result, if it comes in its
    /// [grace period](CancelPolicy::grace_period), discarded, and the
    /// request answered as the policy says: exactly one answer either way.
    /// A cancel for an id that is unknown or already answered, and one for
    /// an entry of a batch, is ignored.
    ///
    /// ```
    /// use typed_rpc::{CancelPolicy, Router};
    /// # use typed_rpc::{Call, HandlerFuture, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    /// let router = Router::builder()
    ///     .service(Nothing)
    ///     .cancel_notification(CancelPolicy::lsp())
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(router.cancel_policy().unwrap().method(), "$/cancelRequest");
    /// ```
    pub fn cancel_notification(mut self, policy: CancelPolicy) -> Self {
        self.cancel = Some(policy);
        self
    }

    /// Builds the router, or fails if two services define the same method
    /// name (or alias): a name is never silently taken from one service by another.
    pub fn build(self) -> Result<Router, BuildError> {
        let mut routes = HashMap::new();
        for (index, service) in self.services.iter().enumerate() {
            for name in service.info().methods().iter().flat_map(|m| m.names()) {
                match routes.insert(name, index) {
                    Some(first) if first != index => {
                        return Err(BuildError::DuplicateMethod {
                            method: name,
                            first: self.services[first].info().name(),
                            second: service.info().name(),
                        });
                    }
                    _ => {}
                }
            }
        }
        if self.services.len() < 2 {
            // A single service is asked directly; the table would go unused.
            routes.clear();
        }
        let router = Router::from_parts(
            self.services,
            routes,
            self.settings,
            self.cancel,
            self.layers,
        );
        let router = discover::install(router, self.discover);
        Ok(router)
    }
}
