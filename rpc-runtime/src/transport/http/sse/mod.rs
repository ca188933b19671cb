//! Server-Sent Events: a `POST` whose `Accept` takes `text/event-stream`
//! may be answered by a stream of events (see [`streaming`](crate::streaming)
//! and `accept.rs`, which reads the header).
//!
//! The call runs with an [`EventSender`] in its context. If it finishes
//! before it sends an event, the answer is the plain JSON reply (an error
//! before a stream's first item is one). Once it sends one, or a streaming
//! method opens its stream, the answer becomes `200 text/event-stream`: the
//! events as they come, then the call's own reply, if it has one, as the
//! last event.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | choosing between a JSON reply and an event stream |
//! | `events.rs` | [`EventSender`], the handlers' side of the queue |
//! | `body.rs` | the response body that reads the queue |
//! | `chunks.rs` | the buffers its chunks are gathered in, reused once written |
//! | `data_lines.rs` | keeping an event whole when its JSON holds a line break |
//! | `client_events.rs` | the client's side: a streaming call's items read from an event stream |

mod body;
mod chunks;
pub(super) mod client_events;
mod data_lines;
mod events;

pub(crate) use body::EventBody;
pub use events::EventSender;

use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;

use bytes::Bytes;
use http::{HeaderValue, Response, header};
use tokio::sync::mpsc;

use super::server::{AnsweredLater, ResponseBody, Shared, reply_response};
use crate::Context;

/// Answers `body`, which the router reads with `context`, as JSON or as an
/// event stream, whichever the call turns out to need: a streaming
/// method's items, and, if `notifications` (the client named
/// `text/event-stream`), what handlers send with
/// [`Context::notify`](crate::Context::notify). `answered` runs once the
/// answer has ended: at once for a JSON reply, at the end of the stream (or
/// when the client leaves) for events.
pub(crate) async fn answer(
    shared: &Shared,
    body: Bytes,
    context: Context,
    notifications: bool,
    answered: AnsweredLater,
) -> Response<ResponseBody> {
    let (queue, mut events) = mpsc::channel(events::QUEUE);
    let context = context.with_peer(Arc::new(EventSender::new(queue, notifications)));
    let router = shared.router.clone();
    let mut running: body::Running =
        Box::pin(async move { router.handle_with(&body, &context).await });
    let first = poll_fn(|cx| match running.as_mut().poll(cx) {
        Poll::Ready(reply) => Poll::Ready(Err(reply)),
        Poll::Pending => events.poll_recv(cx).map(Ok),
    })
    .await;
    let stopping = shared.stopping.clone().cancelled_owned();
    let keep_alive = shared.limits.keep_alive();
    let body = match first {
        // Finished without a word before its reply: plain JSON.
        Err(reply) if events.is_empty() => {
            drop(answered);
            return reply_response(reply);
        }
        Err(reply) => EventBody::new(events, None, None, reply, keep_alive, stopping),
        Ok(first) => EventBody::new(events, first, Some(running), None, keep_alive, stopping),
    };
    let mut response = Response::new(ResponseBody::events(body.when_ended(answered)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // nginx buffers a proxied response unless told not to: events would wait.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
