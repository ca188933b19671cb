//! A handler's stream of items, type-erased, each written straight into the
//! buffer of the transport that carries it.
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

/// The constant text around each item of one stream: an SSE event's
/// `data: {"jsonrpc":"2.0","result":` and `,"id":7}\n\n`, or a
/// subscription notification's head and `}}`.
pub(crate) struct Frame {
    pub(crate) head: String,
    pub(crate) tail: String,
}

impl Frame {
    /// Appends `item` to `out` between the head and the tail; on an error
    /// `out` is left as it was.
    pub(crate) fn write<T: Serialize + ?Sized>(
        &self,
        item: &T,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<()> {
        let start = out.len();
        out.extend_from_slice(self.head.as_bytes());
        if let Err(err) = serde_json::to_writer(&mut *out, item) {
            out.truncate(start);
            return Err(err);
        }
        out.extend_from_slice(self.tail.as_bytes());
        Ok(())
    }
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

/// What the next poll of a stream gave: `Ok` once an item is appended to
/// the buffer, the stream's error (it ends there), or `None` at its end.
pub(crate) type Polled = Poll<Option<Result<(), ErrorObject>>>;

trait Source: Send {
    fn poll_into(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        frame: &Frame,
        out: &mut Vec<u8>,
    ) -> Polled;
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
    fn poll_into(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        frame: &Frame,
        out: &mut Vec<u8>,
    ) -> Polled {
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
            return Poll::Ready(Some(Err(ErrorObject::internal_error())));
        };
        polled.map(|next| {
            Some(match next? {
                Ok(item) => frame.write(&item, out).map_err(|err| unserializable(&err)),
                Err(err) => Err(err.into()),
            })
        })
    }
}

#[cold]
fn unserializable(err: &serde_json::Error) -> ErrorObject {
    tracing::error!(%err, "a stream's item could not be serialized");
    ErrorObject::internal_error()
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

    /// Polls for the next item, appended to `out` framed by `frame` when
    /// it is ready.
    pub(crate) fn poll_into(
        &mut self,
        cx: &mut Context<'_>,
        frame: &Frame,
        out: &mut Vec<u8>,
    ) -> Polled {
        self.source.as_mut().poll_into(cx, frame, out)
    }
}
