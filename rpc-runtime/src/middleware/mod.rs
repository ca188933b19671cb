//! Call layers: code around each JSON-RPC call, on every transport.
//!
//! A [`CallLayer`] sees each call on its way to the handler, as a
//! [`CallRequest`] (method, raw params, id, the transport's [`Context`]),
//! and what it came to, as a [`Reply`]. It may run code before and after
//! the rest of the stack ([`Next::run`]), await in either, answer in the
//! handler's place ([`CallRequest::reject`]), and hand the handler what it
//! learned through the context's [extensions](crate::Context::extensions).
//!
//! Layers wrap single calls, not messages: each entry of a batch passes
//! through them on its own (still concurrently with its siblings), and so
//! does each notification, with no id. A call with a method no service has
//! passes through too, and the innermost step answers it `-32601`, as
//! does `rpc.discover` when the router answers it; a
//! streaming method's call passes through before its stream starts, so a
//! layer may refuse a subscription. The cancel notification of a
//! [`CancelPolicy`](crate::CancelPolicy) does not reach them: it is the
//! router's own. When a call is cancelled, or times out, the stack's future
//! is dropped with the handler's: the code after `next.run(..).await` does
//! not run, and a guard's `Drop` does.
//!
//! Layers stack in the order [`RouterBuilder::layer`](crate::RouterBuilder::layer)
//! adds them: the first added is the outermost, which sees the call first and
//! its reply last. A router without layers does not build the stack at
//! all.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//!
//! use typed_rpc::rpc;
//! use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
//! use typed_rpc::{ErrorObject, Router, RpcResult};
//!
//! #[rpc]
//! pub trait Admin {
//!     #[method(name = "ping")]
//!     async fn ping(&self) -> RpcResult<String>;
//!     #[method(name = "admin.reset")]
//!     async fn reset(&self) -> RpcResult<()>;
//! }
//!
//! struct Server;
//! impl Admin for Server {
//!     async fn ping(&self) -> RpcResult<String> { Ok("pong".into()) }
//!     async fn reset(&self) -> RpcResult<()> { Ok(()) }
//! }
//!
//! /// Refuses the `admin.` methods, and counts the calls that went through.
//! #[derive(Default)]
//! struct NoAdmin(AtomicUsize);
//!
//! impl CallLayer for NoAdmin {
//!     async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
//!         if request.method().starts_with("admin.") {
//!             return request.reject(&ErrorObject::new(4003, "Forbidden"));
//!         }
//!         let reply = next.run(request).await;
//!         self.0.fetch_add(1, Ordering::Relaxed);
//!         reply
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let router = Router::builder()
//!     .service(Server.into_service())
//!     .layer(NoAdmin::default())
//!     .build()
//!     .unwrap();
//! let reply = router.handle(br#"{"jsonrpc":"2.0","method":"admin.reset","id":1}"#).await;
//! assert_eq!(
//!     reply.unwrap(),
//!     r#"{"jsonrpc":"2.0","error":{"code":4003,"message":"Forbidden"},"id":1}"#
//! );
//! let reply = router.handle(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#).await;
//! assert_eq!(reply.unwrap(), r#"{"jsonrpc":"2.0","result":"pong","id":2}"#);
//! # });
//! ```
//!
//! # Spans
//!
//! With a `tracing` subscriber interested in the target `typed_rpc::call`
//! at level `INFO`, each call runs in a span `rpc.call`, outside every
//! layer, with OpenTelemetry's attributes for JSON-RPC: `rpc.system`
//! (`"jsonrpc"`), `rpc.method`, `rpc.jsonrpc.version` (`"2.0"`),
//! `rpc.jsonrpc.request_id` (absent for a notification), and on an error
//! `rpc.jsonrpc.error_code`, `rpc.jsonrpc.error_message` and
//! `otel.status_code = "ERROR"`; `otel.kind = "server"`, `otel.name` (the
//! method), `rpc.transport` ([`TransportKind`](crate::TransportKind) as text)
//! and, where known, `network.peer.address` and `network.peer.port`. The
//! span lasts as long as the call. When no subscriber wants it, the router
//! asks once per call and takes the path without layers.

mod next;
mod reply;
mod request;
pub(crate) mod span;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub(crate) use next::Endpoint;
pub use next::Next;
pub use reply::Reply;
pub use request::CallRequest;

#[cfg(doc)]
use crate::Context;

/// Code around each call: see the [module](self) for what it sees and
/// the order layers run in.
///
/// Implement it with an `async fn`, as in the module's example.
pub trait CallLayer: Send + Sync + 'static {
    /// Handles `request`: passes it on with `next.run(request).await`, or
    /// answers it without the layers inside and the handler.
    fn call<'a>(
        &'a self,
        request: CallRequest<'a>,
        next: Next<'a>,
    ) -> impl Future<Output = Reply> + Send + 'a;
}

/// A layer shared with whoever keeps another handle on it: to read the
/// counters of a metrics layer, say.
impl<L: CallLayer> CallLayer for Arc<L> {
    fn call<'a>(
        &'a self,
        request: CallRequest<'a>,
        next: Next<'a>,
    ) -> impl Future<Output = Reply> + Send + 'a {
        (**self).call(request, next)
    }
}

/// A [`CallLayer`] of any type, as the router keeps its stack.
pub(crate) trait DynLayer: Send + Sync + 'static {
    fn call_boxed<'a>(
        &'a self,
        request: CallRequest<'a>,
        next: Next<'a>,
    ) -> Pin<Box<dyn Future<Output = Reply> + Send + 'a>>;
}

impl<L: CallLayer> DynLayer for L {
    fn call_boxed<'a>(
        &'a self,
        request: CallRequest<'a>,
        next: Next<'a>,
    ) -> Pin<Box<dyn Future<Output = Reply> + Send + 'a>> {
        Box::pin(self.call(request, next))
    }
}
