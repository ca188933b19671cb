//! Streaming methods: one request answered by a sequence of items.
//!
//! A method marked `#[method(stream)]` returns `RpcResult<impl Stream<Item =
//! RpcResult<T>> + Send + 'static>`. The server picks the wire form from the
//! transport and the request:
//!
//! | transport | form |
//! |---|---|
//! | HTTP, `Accept` includes `text/event-stream` | Server-Sent Events: `200`, `Content-Type: text/event-stream`; each item one event whose data is a whole response with the request's id; the stream closes when the handler's stream ends |
//! | WebSocket, TCP, stdio | a subscription: the call is answered with a subscription id, then each item is a notification `{"subscription": id, "result": item}` named by [`StreamInfo::notification`](crate::StreamInfo::notification); [`StreamInfo::unsubscribe`](crate::StreamInfo::unsubscribe) ends it |
//! | HTTP without `text/event-stream`, in-process, in a batch | `-32600`, with the reason in `data` |
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

mod data_lines;
mod items;

#[cfg(feature = "http")]
pub(crate) use data_lines::data_event;
pub use items::Items;
#[cfg(any(feature = "http", feature = "duplex"))]
pub(crate) use items::{Buffer, Frame};

use crate::wire::{self, Id};
use crate::{Context, ErrorObject, StreamInfo};

/// Where a streaming call's items go, as its transport and request decide.
pub(crate) enum Route<'a> {
    /// Server-Sent Events in the HTTP response.
    #[cfg(feature = "http")]
    Events(&'a crate::transport::http::EventSender),
    /// A subscription on a two-way connection.
    #[cfg(feature = "duplex")]
    Subscription(&'a crate::transport::Connection),
    #[cfg(not(any(feature = "http", feature = "duplex")))]
    #[doc(hidden)]
    _Never(std::marker::PhantomData<&'a ()>, std::convert::Infallible),
}

/// Where `context`'s streaming call goes, or why it cannot stream.
pub(crate) fn route(context: &Context, batched: bool) -> Result<Route<'_>, ErrorObject> {
    if batched {
        return Err(refused("a streaming method cannot be called in a batch"));
    }
    #[cfg(feature = "http")]
    if let Some(events) = context.events() {
        return Ok(Route::Events(events));
    }
    #[cfg(feature = "duplex")]
    if let Some(connection) = context.connection() {
        return Ok(Route::Subscription(connection));
    }
    Err(refused(match context.transport() {
        crate::TransportKind::Http => {
            "this method streams its result: send `Accept: text/event-stream`, or call it over WebSocket"
        }
        _ => "this method streams its result, which this transport cannot carry",
    }))
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
        #[cfg(feature = "http")]
        Route::Events(events) => {
            let _ = info;
            events.pump(id, items).await;
            None
        }
        #[cfg(feature = "duplex")]
        Route::Subscription(connection) => connection.subscribe(id, info, items).await,
        #[cfg(not(any(feature = "http", feature = "duplex")))]
        Route::_Never(_, never) => {
            let _ = (id, info, items);
            match never {}
        }
    }
}

#[cold]
fn refused(reason: &str) -> ErrorObject {
    wire::invalid_request(reason)
}
