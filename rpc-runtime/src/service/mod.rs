//! The interface between the router and a set of methods.

use std::future::Future;
use std::pin::Pin;
use std::task::{self, Poll};

use serde::Serialize;
use serde_json::value::RawValue;

use crate::wire::{self, Id};
use crate::{Context, ErrorObject, ServiceInfo};

#[expect(
    unsafe_code,
    reason = "the handler slot writes a future into bytes of its own; the crate's only unsafe code"
)]
mod slot;

pub use slot::HandlerSlot;

/// A handler's future, boxed, as [`RpcService::call`] returns it: it
/// resolves to the response text, or to `None` when nothing is to be
/// answered (a notification).
pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Option<String>> + Send + 'a>>;

/// A set of methods the [`Router`](crate::Router) dispatches to.
///
/// `#[rpc]` implements it for the service type it generates (`FooService<S>`
/// for a trait `Foo`); implement it by hand only for a service whose methods
/// are not known at compile time.
///
/// ```
/// use typed_rpc::{Call, DecodeParams, HandlerFuture, MethodInfo, ParamInfo, Router, RpcService, ServiceInfo};
///
/// struct Echo;
///
/// static INFO: ServiceInfo =
///     ServiceInfo::new("Echo", &[MethodInfo::method("echo").params(&[ParamInfo::new("text", "String")])]);
///
/// impl RpcService for Echo {
///     fn info(&self) -> &'static ServiceInfo {
///         &INFO
///     }
///
///     fn call<'a>(&'a self, method: &str, call: Call<'a>) -> Option<HandlerFuture<'a>> {
///         let info = INFO.method(method)?;
///         let reply = match <(String,)>::decode(call.params(), info) {
///             Ok((text,)) => call.respond(Ok::<_, typed_rpc::ErrorObject>(text)),
///             Err(err) => call.respond_error(&err),
///         };
///         Some(Box::pin(std::future::ready(reply)))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let router = Router::new(Echo);
/// let reply = router.handle(br#"{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":7}"#).await;
/// assert_eq!(reply.unwrap(), r#"{"jsonrpc":"2.0","result":"hi","id":7}"#);
/// # });
/// ```
pub trait RpcService: Send + Sync + 'static {
    /// The service's static description: its methods, their names and params.
    fn info(&self) -> &'static ServiceInfo;

    /// Starts handling `method`; `None` if the service has no such method.
    fn call<'a>(&'a self, method: &str, call: Call<'a>) -> Option<HandlerFuture<'a>>;

    /// Starts handling `method` with its future put in `slot`, and polls
    /// that future once with `cx`, the context of the task that runs it.
    /// The router calls this one.
    ///
    /// Returns `None` if the service has no such method; otherwise the
    /// first poll: `Ready` with the reply (`None` for a notification), or
    /// `Pending`, and then the router polls `slot` until it finishes.
    ///
    /// By default the future [`call`](RpcService::call) returns goes in the
    /// slot. `#[rpc]` services put the handler's future there directly,
    /// which spares an allocation when it is small (see [`HandlerSlot`]).
    fn call_in<'a>(
        &'a self,
        method: &str,
        call: Call<'a>,
        slot: Pin<&mut HandlerSlot<'a>>,
        cx: &mut task::Context<'_>,
    ) -> Option<Poll<Option<String>>> {
        let future = self.call(method, call)?;
        Some(slot.start(future, cx))
    }
}

/// One call of a method, as the router hands it to a service.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    params: Option<&'a RawValue>,
    id: Option<Id<'a>>,
    context: &'a Context,
    batched: bool,
}

impl<'a> Call<'a> {
    pub(crate) fn new(
        params: Option<&'a RawValue>,
        id: Option<Id<'a>>,
        context: &'a Context,
        batched: bool,
    ) -> Self {
        Call {
            params,
            id,
            context,
            batched,
        }
    }

    /// Whether the call is an entry of a batch.
    pub fn is_batched(&self) -> bool {
        self.batched
    }

    /// What is known about the request: transport, peer, connection.
    pub fn context(&self) -> &'a Context {
        self.context
    }

    /// The raw `params` (an array or an object), if the request had any.
    pub fn params(&self) -> Option<&'a RawValue> {
        self.params
    }

    /// The request id; `None` when the call is a notification.
    pub fn id(&self) -> Option<Id<'a>> {
        self.id
    }

    /// The response text for the handler's `outcome`; `None` for a notification.
    #[inline]
    pub fn respond<R: IntoResponse>(self, outcome: R) -> Option<String> {
        outcome.into_response(self.id?)
    }

    /// The response text carrying `error`; `None` for a notification.
    #[cold]
    pub fn respond_error(self, error: &ErrorObject) -> Option<String> {
        Some(wire::failure(Some(self.id?), error))
    }
}

/// What a handler returns, turned into a response.
///
/// Implemented for `Result<T, E>` where `T: Serialize` and
/// `E: Into<ErrorObject>` (methods), and for `()` (notifications; if one is
/// called with an id, it is answered with `null`, as LSP does).
pub trait IntoResponse {
    /// The response text for the request with `id`.
    fn into_response(self, id: Id<'_>) -> Option<String>;
}

impl<T: Serialize, E: Into<ErrorObject>> IntoResponse for Result<T, E> {
    #[inline]
    fn into_response(self, id: Id<'_>) -> Option<String> {
        Some(match self {
            Ok(result) => wire::success(id, &result),
            Err(err) => wire::failure(Some(id), &err.into()),
        })
    }
}

impl IntoResponse for () {
    #[inline]
    fn into_response(self, id: Id<'_>) -> Option<String> {
        Some(wire::success(id, &()))
    }
}
