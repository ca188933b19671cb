//! The rest of the stack: the layers inside one, then the handler.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::Poll;

use super::{CallRequest, DynLayer, Reply};
use crate::service::{Call, HandlerSlot, RpcService};
use crate::{ErrorObject, wire};

/// A reply on its way, boxed: each layer's future is of a type of its own.
type PendingReply<'a> = Pin<Box<dyn Future<Output = Reply> + Send + 'a>>;

/// What a layer hands the call to: the layers it wraps, then the handler.
///
/// Consumed by [`run`](Next::run): a layer calls it at most once, or answers
/// itself without it.
#[must_use = "the call goes no further until `run` is awaited"]
pub struct Next<'a> {
    layers: &'a [Box<dyn DynLayer>],
    endpoint: Endpoint<'a>,
}

/// What answers a call after the last layer.
pub(crate) enum Endpoint<'a> {
    /// The service that has the method; `None`: no service has it.
    Service(Option<&'a dyn RpcService>),
    /// The router itself, which has answered already (`rpc.discover`).
    Router(Option<String>),
}

impl<'a> Next<'a> {
    /// The whole stack of `layers` around `endpoint`.
    pub(crate) fn new(layers: &'a [Box<dyn DynLayer>], endpoint: Endpoint<'a>) -> Self {
        Next { layers, endpoint }
    }

    /// Passes `request` to the next layer, or to its handler after the
    /// last one, and resolves to what it came to.
    pub fn run(self, request: CallRequest<'a>) -> impl Future<Output = Reply> + Send + 'a {
        let pending: PendingReply<'a> = match self.layers.split_first() {
            Some((layer, inner)) => layer.call_boxed(
                request,
                Next {
                    layers: inner,
                    endpoint: self.endpoint,
                },
            ),
            None => match self.endpoint {
                Endpoint::Service(service) => Box::pin(handle(service, request)),
                Endpoint::Router(reply) => Box::pin(std::future::ready(Reply::new(reply))),
            },
        };
        pending
    }
}

/// The innermost step: the handler of `request`'s method, in a slot of its
/// own, or `-32601` when `service` is `None` or has no such method.
async fn handle(service: Option<&dyn RpcService>, request: CallRequest<'_>) -> Reply {
    let parts = request.into_parts();
    let not_found = || {
        parts
            .id
            .map(|id| wire::failure(Some(id), &ErrorObject::method_not_found()))
    };
    let Some(service) = service else {
        return Reply::new(not_found());
    };
    let call = Call::new(parts.params, parts.id, &parts.context, parts.batched);
    let mut slot = pin!(HandlerSlot::new());
    let first =
        poll_fn(|cx| Poll::Ready(service.call_in(&parts.method, call, slot.as_mut(), cx))).await;
    Reply::new(match first {
        Some(Poll::Ready(reply)) => reply,
        Some(Poll::Pending) => slot.await,
        None => not_found(),
    })
}
