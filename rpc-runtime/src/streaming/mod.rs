//! Streaming methods: one request answered by a sequence of items.
//!
//! A method marked `#[method(stream)]` returns `RpcResult<impl Stream<Item =
//! RpcResult<T>> + Send + 'static>`. The server picks the wire form from the
//! transport and the request:
//!
//! | transport | form |
//! |---|---|
//! | HTTP, `Accept` takes `text/event-stream` (also through `*/*` or `text/*`, or with no `Accept`) | Server-Sent Events: `200`, `Content-Type: text/event-stream`; each item one event whose data is a whole response with the request's id; the stream closes when the handler's stream ends |
//! | an in-process client ([`InProcess`](crate::client::InProcess)) | the items, read by the client as they are made |
//! | WebSocket, TCP, stdio | a subscription: the call is answered with a subscription id, then each item is a notification `{"subscription": id, "result": item}` named by [`StreamInfo::notification`](crate::StreamInfo::notification); [`StreamInfo::unsubscribe`](crate::StreamInfo::unsubscribe) ends it |
//! | HTTP that takes JSON and not events, [`Router::handle`](crate::Router::handle), in a batch | the method's [`StreamFallback`]: `-32600` with the reason in `data`, or the last item as the plain result |
//!
//! On both forms an error the handler returns before its stream is a plain
//! error response; an error item is sent as an error (an SSE event with an
//! error response, a notification with `"error"` in place of `"result"`) and
//! ends the stream. On a subscription, the end of the stream is announced by
//! a last notification `{"subscription": id, "end": true}`; a client that
//! unsubscribes gets `true` and no item after it.
//!
//! Items are pulled from the handler's stream only as fast as the peer takes
//! them: a reader that stops reading stops the producer, and memory stays
//! bounded. A producer is dropped when its subscriber unsubscribes, its
//! connection closes, its SSE client goes away, or the server shuts down.
//! A stream cut short by a graceful shutdown ends with an error item,
//! [`ErrorObject::shutting_down`] (`-32090`), so that its client tells it
//! from a stream that completed and from a connection lost.
//! The call's `tracing` span lasts as long as its stream.

mod handover;
mod items;
mod last_item;

pub(crate) use handover::Handover;
pub use items::Items;
pub(crate) use items::{Buffer, Frame, bare_items};

use crate::context::Peer;
use crate::wire::{self, Id};
use crate::{Context, ErrorObject, StreamFallback, StreamInfo};

/// Where a streaming call's items go, as its transport and request decide.
pub(crate) enum Route<'a> {
    /// The call's peer, as its transport carries a stream: Server-Sent
    /// Events in an HTTP response, a subscription on a two-way connection.
    Peer(&'a dyn Peer),
    /// Handed over whole to a caller in the same process (an in-process
    /// client), which reads the items itself.
    Handover(&'a Handover),
    /// Nowhere: the stream runs to its end, and its last item is the reply
    /// ([`StreamFallback::LastItem`]).
    LastItem,
}

/// Where `context`'s call of a method streaming as `info` goes, or why it
/// cannot stream.
pub(crate) fn route<'a>(
    context: &'a Context,
    batched: bool,
    info: &StreamInfo,
) -> Result<Route<'a>, ErrorObject> {
    if !batched && let Some(route) = carrier(context) {
        return Ok(route);
    }
    match info.fallback_answer() {
        StreamFallback::LastItem => Ok(Route::LastItem),
        StreamFallback::Refuse => Err(refused(match context.transport() {
            _ if batched => "a streaming method cannot be called in a batch",
            crate::TransportKind::Http => {
                "this method streams its result, and the request's `Accept` excludes `text/event-stream`: accept it, or call the method over WebSocket"
            }
            _ => "this method streams its result, which this transport cannot carry",
        })),
    }
}

/// What carries the items of a call made with `context`, if anything can.
fn carrier(context: &Context) -> Option<Route<'_>> {
    if let Some(handover) = context.handover() {
        return Some(Route::Handover(handover));
    }
    context.peer().map(Route::Peer)
}

/// Sends `items` as `route` says for the call `id` of a method streaming as
/// `info`; the reply the call still owes, if any.
pub(crate) async fn serve(
    route: Route<'_>,
    id: Id<'_>,
    info: &'static StreamInfo,
    items: Items,
) -> Option<String> {
    match route {
        Route::Peer(peer) => peer.stream(id, info, items).await,
        Route::Handover(handover) => {
            handover.put(items);
            None
        }
        Route::LastItem => Some(last_item::reply(id, items).await),
    }
}

#[cold]
fn refused(reason: &str) -> ErrorObject {
    wire::invalid_request(reason)
}
