//! A handler's stream of items, type-erased, each written straight into the
//! message that carries it.
#![cfg_attr(
    not(any(feature = "http", feature = "duplex")),
    expect(
        dead_code,
        reason = "without a transport that streams, every streaming call is refused before its items are read"
    )
)]

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::Serialize;

use crate::ErrorObject;
use crate::wire;

/// The constant text around each item of one stream: an SSE event's
/// `data: {"jsonrpc":"2.0","result":` and `,"id":7}\n\n`, or a
/// subscription notification's head and `}}`.
pub(crate) struct Frame {
    pub(crate) head: String,
    pub(crate) tail: String,
}

/// What a stream yields next.
pub(crate) enum Item {
    /// An item, framed: the whole message to send.
    Message(String),
    /// The handler's stream failed; it ends here.
    Error(ErrorObject),
}

/// A streaming handler's items, whatever their type.
pub struct Items {
    source: Pin<Box<dyn Source>>,
}

impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Items")
    }
}

trait Source: Send {
    fn poll_item(self: Pin<&mut Self>, cx: &mut Context<'_>, frame: &Frame) -> Poll<Option<Item>>;
}

pin_project_lite::pin_project! {
    struct Typed<S> {
        #[pin]
        stream: S,
        // Set once the stream has panicked: it is never polled again.
        panicked: bool,
    }
}

impl<S, T, E> Source for Typed<S>
where
    S: Stream<Item = Result<T, E>> + Send,
    T: Serialize,
    E: Into<ErrorObject>,
{
    fn poll_item(self: Pin<&mut Self>, cx: &mut Context<'_>, frame: &Frame) -> Poll<Option<Item>> {
        let this = self.project();
        if *this.panicked {
            return Poll::Ready(None);
        }
        // A stream that panics ends with an internal error, as a handler
        // that panics answers one: its subscriber is told, the rest of the
        // connection is not disturbed.
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| this.stream.poll_next(cx)));
        let Ok(polled) = polled else {
            *this.panicked = true;
            tracing::error!("a stream's producer panicked");
            return Poll::Ready(Some(Item::Error(ErrorObject::internal_error())));
        };
        polled.map(|next| {
            Some(match next? {
                Ok(item) => match wire::framed(&frame.head, &item, &frame.tail) {
                    Ok(message) => Item::Message(message),
                    Err(err) => unserializable(&err),
                },
                Err(err) => Item::Error(err.into()),
            })
        })
    }
}

#[cold]
fn unserializable(err: &serde_json::Error) -> Item {
    tracing::error!(%err, "a stream's item could not be serialized");
    Item::Error(ErrorObject::internal_error())
}

impl Items {
    /// Erases the type of a handler's `stream`.
    pub(crate) fn new<S, T, E>(stream: S) -> Self
    where
        S: Stream<Item = Result<T, E>> + Send + 'static,
        T: Serialize,
        E: Into<ErrorObject>,
    {
        Items {
            source: Box::pin(Typed {
                stream,
                panicked: false,
            }),
        }
    }

    /// The next item framed by `frame`; `None` once the stream has ended.
    pub(crate) async fn next(&mut self, frame: &Frame) -> Option<Item> {
        std::future::poll_fn(|cx| self.source.as_mut().poll_item(cx, frame)).await
    }
}
