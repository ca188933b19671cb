//! The handlers' side of a Server-Sent Events response: a bounded queue of
//! events, read by the response body as the client takes them, and a
//! streaming method's items, which the body pulls itself.

use std::any::Any;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use tokio::sync::mpsc;

use super::data_lines::{data_event, keep_whole};
use crate::context::peer::{Peer, PeerFuture, PeerGone};
use crate::streaming::{Buffer, Frame, Items};
use crate::wire::Id;
use crate::{ErrorObject, StreamInfo};

/// How many events wait for the client at most; a handler sending more
/// waits until the client has read some.
pub(super) const QUEUE: usize = 16;

/// What goes in the queue.
pub(super) enum Event {
    /// One whole event, `data: ...\n\n`.
    Data(Bytes),
    /// A streaming method's items, each sent as an event by the body
    /// itself, after the events queued before.
    Items(Box<ItemEvents>),
}

/// A streaming call's items, with the text around each of its events.
pub(super) struct ItemEvents {
    items: Items,
    /// Around each item: `data: {"jsonrpc":"2.0","result":` and `,"id":7}\n\n`.
    result: Frame,
    /// Around the error that ends the stream.
    error: Frame,
}

/// Where the handlers of one HTTP request send events, when the client
/// accepts `text/event-stream` (see [`Context::notify`](crate::Context::notify)).
#[derive(Clone, Debug)]
pub struct EventSender {
    queue: mpsc::Sender<Event>,
    /// Whether the client named `text/event-stream`, and so takes
    /// notifications before a reply, not only a streaming method's items.
    notifications: bool,
}

impl EventSender {
    pub(super) fn new(queue: mpsc::Sender<Event>, notifications: bool) -> Self {
        EventSender {
            queue,
            notifications,
        }
    }

    /// Queues one JSON-RPC message as an event; `false` once the client has gone.
    async fn send(&self, message: &str) -> bool {
        self.queue
            .send(Event::Data(Bytes::from(data_event(message))))
            .await
            .is_ok()
    }

    /// Hands `items` to the response body, which sends each as an event of
    /// the call `id` (a whole response) as fast as the client reads, until
    /// they end, one fails (its error is the last event) or the client
    /// leaves.
    async fn pump(&self, id: Id<'_>, items: Items) {
        let tail = format!(",\"id\":{}}}\n\n", id.as_json());
        let events = ItemEvents {
            items,
            result: Frame {
                head: r#"data: {"jsonrpc":"2.0","result":"#.to_owned(),
                tail: tail.clone(),
                mend: Some(keep_whole),
            },
            error: Frame {
                head: r#"data: {"jsonrpc":"2.0","error":"#.to_owned(),
                tail,
                mend: Some(keep_whole),
            },
        };
        let _ = self.queue.send(Event::Items(Box::new(events))).await;
    }
}

impl Peer for EventSender {
    fn takes_notifications(&self) -> bool {
        self.notifications
    }

    fn notify(&self, text: String) -> PeerFuture<'_, Result<(), PeerGone>> {
        Box::pin(async move { self.send(&text).await.then_some(()).ok_or(PeerGone) })
    }

    fn stream<'a>(
        &'a self,
        id: Id<'a>,
        _: &'static StreamInfo,
        items: Items,
    ) -> PeerFuture<'a, Option<String>> {
        Box::pin(async move {
            self.pump(id, items).await;
            None
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl ItemEvents {
    /// Appends the events of the items ready to `out`, until it holds
    /// `room` bytes; `Ready(false)` once the stream has ended (with its
    /// error event, if it failed).
    pub(super) fn poll_events(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut Vec<u8>,
        room: usize,
    ) -> Poll<bool> {
        let into = Buffer {
            out,
            room,
            ends: None,
        };
        match ready!(self.items.poll_into(cx, &self.result, into)) {
            Some(Ok(())) => Poll::Ready(true),
            Some(Err(error)) => {
                // Cannot fail: an error object serializes.
                let _ = self.error.write(&error, out);
                Poll::Ready(false)
            }
            None => Poll::Ready(false),
        }
    }

    /// Appends the event that ends the stream cut short by a shutdown: an
    /// error of the call, [`ErrorObject::shutting_down`].
    #[cold]
    pub(super) fn write_shutdown(&self, out: &mut Vec<u8>) {
        // Cannot fail: an error object serializes.
        let _ = self.error.write(&ErrorObject::shutting_down(), out);
    }
}
