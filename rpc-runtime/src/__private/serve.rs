//! The server's side of generated services: decoding a call's params and
//! starting its handler in the call's slot.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{self, Poll};

use serde::Serialize;

use super::ParamTypes;
use crate::service::{Call, HandlerFuture, HandlerSlot, IntoResponse, RpcService};
use crate::{DecodeParams, ErrorObject, MethodInfo};

/// Decodes the params of `call` for `method` into the types `params` names,
/// then puts the future of `handler` run on them in `slot` and polls it once
/// with `cx`: the first poll of [`RpcService::call_in`] for a method that
/// exists.
#[inline]
pub fn dispatch<'a, P, A, F, Fut>(
    call: Call<'a>,
    method: &'static MethodInfo,
    _params: P,
    handler: F,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>>
where
    // No bound `A: DecodeParams`: `ParamTypes` implies it, and a bound of
    // its own would be checked, and reported, a second time.
    P: ParamTypes<Decoded = A>,
    F: FnOnce(A) -> Fut,
    Fut: Future + Send + 'a,
    Fut::Output: IntoResponse,
{
    // The future keeps only the id of the call: the smaller it is, the
    // less is written into the slot.
    let id = call.id();
    start_decoded::<P, A, _>(call, method, slot, cx, |args| {
        let running = handler(args);
        async move { running.await.into_response(id?) }
    })
}

/// [`dispatch`] for a streaming method (`#[method(stream)]`): the handler
/// resolves to a stream of items, which go out as the transport streams
/// (see [`streaming`](crate::streaming)). A call that cannot stream where
/// it came from is refused before its params are read, unless its method
/// falls back to its last item.
#[inline]
pub fn dispatch_stream<'a, P, A, F, Fut, S, T, E, ItemError>(
    call: Call<'a>,
    method: &'static MethodInfo,
    _params: P,
    handler: F,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>>
where
    P: ParamTypes<Decoded = A>,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<S, E>> + Send + 'a,
    E: Into<ErrorObject>,
    S: futures_core::Stream<Item = Result<T, ItemError>> + Send + 'static,
    T: Serialize,
    ItemError: Into<ErrorObject>,
{
    // The macro marks every method it dispatches here as streaming.
    let info = method.stream_info()?;
    let route = match crate::streaming::route(call.context(), call.is_batched(), info) {
        Ok(route) => route,
        Err(refused) => return Some(Poll::Ready(call.respond_error(&refused))),
    };
    let id = call.id();
    start_decoded::<P, A, _>(call, method, slot, cx, |args| {
        let running = handler(args);
        async move {
            let id = id?;
            let items = match running.await {
                Ok(items) => crate::streaming::Items::new(items),
                Err(err) => return Some(crate::wire::failure(Some(id), &err.into())),
            };
            crate::streaming::serve(route, id, info, items).await
        }
    })
}

/// Decodes the params of `call` for `method` into the types `P` names and
/// puts the future `run` makes of them in `slot`, polled once with `cx`; a
/// call whose params do not decode is answered at once.
#[inline]
fn start_decoded<'a, P, A, Fut>(
    call: Call<'a>,
    method: &'static MethodInfo,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
    run: impl FnOnce(A) -> Fut,
) -> Option<Poll<Option<String>>>
where
    P: ParamTypes<Decoded = A>,
    Fut: Future<Output = Option<String>> + Send + 'a,
{
    Some(match P::decode(call.params(), method) {
        Ok(args) => slot.start(run(args), cx),
        Err(err) => Poll::Ready(call.respond_error(&err)),
    })
}

/// Answers the unsubscribe method of a streaming method: `[id]` or
/// `{"subscription": id}` ends the subscription `id` of the caller's
/// connection; `true` if it was live.
pub fn unsubscribe<'a>(
    call: Call<'a>,
    method: &'static MethodInfo,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>> {
    Some(match <(String,)>::decode(call.params(), method) {
        Ok((subscription,)) => slot.start(
            async move {
                let ended = match call.context().peer() {
                    Some(peer) => peer.unsubscribe(&subscription).await,
                    None => false,
                };
                call.respond(Ok::<_, ErrorObject>(ended))
            },
            cx,
        ),
        Err(err) => Poll::Ready(call.respond_error(&err)),
    })
}

/// [`RpcService::call`] of a service that implements
/// [`RpcService::call_in`]: a boxed future that runs `call_in` when first
/// polled, since that needs the task's context.
pub fn call_boxed<'a, S: RpcService>(
    service: &'a S,
    method: &str,
    call: Call<'a>,
) -> Option<HandlerFuture<'a>> {
    // The name `call_in` answers to, kept by the future.
    let method = service.info().method(method)?.name();
    Some(Box::pin(async move {
        let mut slot = pin!(HandlerSlot::new());
        let first = poll_fn(|cx| Poll::Ready(service.call_in(method, call, slot.as_mut(), cx)));
        match first.await {
            Some(Poll::Ready(reply)) => reply,
            Some(Poll::Pending) => slot.await,
            // `info` and `call_in` know the same methods.
            None => None,
        }
    }))
}
