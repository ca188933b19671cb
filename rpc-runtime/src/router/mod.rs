//! The router: request text in, response text out.
//!
//! It implements every rule of JSON-RPC 2.0 that does not depend on a
//! transport: single requests, notifications (run, never answered), batches
//! (run concurrently, answered only for requests; nothing at all when every
//! entry is a notification), parse errors, invalid requests and unknown
//! methods. A handler that panics answers `-32603` for its own request and
//! nothing else is disturbed.

mod guard;

use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

#[cfg(feature = "rt")]
use guard::Deadline;
use guard::{Guarded, Slot};

use crate::context::{self, Context};
use crate::service::{Call, HandlerFuture, RpcService};
use crate::wire::{self, Entry, Message, Request};
use crate::{ErrorObject, ServiceInfo};

/// The default limit on the number of entries in a batch.
pub const DEFAULT_MAX_BATCH_LEN: usize = 1024;

/// Dispatches JSON-RPC messages to the methods of one or more services.
///
/// Cheap to clone: clones share the same services.
///
/// ```
/// use rpc_runtime::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
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
}

/// The limits a router enforces, as the builder sets them.
#[derive(Clone, Copy, Debug)]
struct Settings {
    max_batch_len: usize,
    #[cfg(feature = "rt")]
    request_timeout: Option<std::time::Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_batch_len: DEFAULT_MAX_BATCH_LEN,
            #[cfg(feature = "rt")]
            request_timeout: None,
        }
    }
}

impl Router {
    /// A router for one service, with default limits.
    pub fn new(service: impl RpcService) -> Self {
        Router::from_parts(vec![Box::new(service)], HashMap::new(), Settings::default())
    }

    /// A router with no methods: it answers every request with `-32601`.
    #[cfg(feature = "duplex")]
    pub(crate) fn empty() -> Self {
        Router::from_parts(Vec::new(), HashMap::new(), Settings::default())
    }

    fn from_parts(
        services: Vec<Box<dyn RpcService>>,
        routes: HashMap<&'static str, usize>,
        settings: Settings,
    ) -> Self {
        Router {
            inner: Arc::new(Inner {
                services,
                routes,
                settings,
            }),
        }
    }

    /// A builder to merge several services and set limits.
    pub fn builder() -> RouterBuilder {
        RouterBuilder {
            services: Vec::new(),
            settings: Settings::default(),
        }
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
            Ok(Message::Single(entry)) => match self.start(entry, context) {
                Slot::Running(future) => future.await,
                Slot::Done(reply) => reply,
            },
            Ok(Message::Batch(entries)) => {
                let slots = entries
                    .into_iter()
                    .map(|entry| self.start(entry, context))
                    .collect();
                guard::join_batch(slots).await
            }
            Err(error) => Some(wire::failure(None, &error)),
        }
    }

    /// Starts one entry: its handler's future, or its reply when there is nothing to run.
    fn start<'a>(&'a self, entry: Entry<'a>, context: &'a Context) -> Slot<'a> {
        let request = match entry {
            Entry::Request(request) => request,
            Entry::Invalid { id, reason } => {
                return Slot::Done(Some(wire::failure(id, &wire::invalid_request(reason))));
            }
        };
        // A handler may panic before it returns its future (a plain `fn`
        // impl, a `Deserialize` impl): that is its own request's `-32603` too.
        let started = catch_unwind(AssertUnwindSafe(|| self.dispatch(&request, context)));
        match started {
            Err(panic) => Slot::Done(guard::panicked(request.id(), &*panic)),
            Ok(Some(future)) => Slot::Running(self.guard(future, request.id())),
            Ok(None) => Slot::Done(
                request
                    .id()
                    .map(|id| wire::failure(Some(id), &ErrorObject::method_not_found())),
            ),
        }
    }

    /// Watches a running handler for panics and, if set, the request timeout.
    fn guard<'a>(&self, future: HandlerFuture<'a>, id: Option<crate::Id<'a>>) -> Guarded<'a> {
        let guarded = Guarded::new(future, id);
        #[cfg(feature = "rt")]
        let guarded =
            guarded.with_deadline(self.inner.settings.request_timeout.map(Deadline::after));
        guarded
    }

    fn dispatch<'a>(
        &'a self,
        request: &Request<'a>,
        context: &'a Context,
    ) -> Option<HandlerFuture<'a>> {
        let call = Call::new(request.params(), request.id(), context);
        let services = &self.inner.services;
        let service = match services.as_slice() {
            [only] => only,
            _ => &services[*self.inner.routes.get(request.method())?],
        };
        service.call(request.method(), call)
    }
}

impl fmt::Debug for Router {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Router")
            .field(
                "services",
                &self.services().map(ServiceInfo::name).collect::<Vec<_>>(),
            )
            .field("settings", &self.inner.settings)
            .finish()
    }
}

/// Builds a [`Router`] from several services.
///
/// ```
/// use rpc_runtime::{Call, HandlerFuture, MethodInfo, Router, RpcService, ServiceInfo};
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
}

impl RouterBuilder {
    /// Adds a service. Its method names must not clash with those of the
    /// services already added.
    pub fn service(mut self, service: impl RpcService) -> Self {
        self.services.push(Box::new(service));
        self
    }

    /// Sets the most entries a batch may hold (default
    /// [`DEFAULT_MAX_BATCH_LEN`]). A longer batch is refused as a whole with
    /// one `-32600` error whose `data` gives the limit.
    pub fn max_batch_len(mut self, max: usize) -> Self {
        self.settings.max_batch_len = max;
        self
    }

    /// Gives each handler at most `timeout` to finish (default: no limit).
    /// A request whose handler runs longer is answered `-32603` `"Request
    /// timed out"` and its handler is dropped; the other requests, and the
    /// other entries of its batch, are not disturbed.
    #[cfg(feature = "rt")]
    pub fn request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.settings.request_timeout = Some(timeout);
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
        Ok(Router::from_parts(self.services, routes, self.settings))
    }
}

/// Why a [`Router`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two services define the same method name or alias.
    DuplicateMethod {
        /// The method name.
        method: &'static str,
        /// The service that defined it first.
        first: &'static str,
        /// The service that defined it again.
        second: &'static str,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::DuplicateMethod {
                method,
                first,
                second,
            } => {
                write!(
                    f,
                    "method `{method}` is defined by both `{first}` and `{second}`"
                )
            }
        }
    }
}

impl std::error::Error for BuildError {}
