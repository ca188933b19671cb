//! A handler's stream of items, type-erased, each written straight into the
//! buffer of the transport that carries it.

use std::ops::Range;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::Serialize;
use tracing::Span;

use crate::ErrorObject;

/// The constant text around each item of one stream: an SSE event's
/// `data: {"jsonrpc":"2.0","result":` and `,"id":7}\n\n`, or a
/// subscription notification's head and `}}`.
pub(crate) struct Frame {
    pub(crate) head: String,
    pub(crate) tail: String,
    /// Set by a transport whose framing a line break inside the item would
    /// break (an SSE event's line): mends the text just written, the item
    /// at `value` of the frame at `start..` of `out`.
    pub(crate) mend: Option<Mend>,
}

/// Mends a frame just written to `out` (see [`Frame::mend`]): the frame
/// starts at the first `usize`, its item lies in the range.
pub(crate) type Mend = fn(out: &mut Vec<u8>, start: usize, value: Range<usize>);

impl Frame {
    /// Appends `item` to `out` between the head and the tail; on an error
    /// `out` is left as it was.
    #[inline]
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
        let value = start + self.head.len()..out.len();
        out.extend_from_slice(self.tail.as_bytes());
        if let Some(mend) = self.mend {
            mend(out, start, value);
        }
        Ok(())
    }
}

impl Frame {
    /// Nothing around an item: its JSON alone, for a caller in the process.
    pub(crate) const BARE: Frame = Frame {
        head: String::new(),
        tail: String::new(),
        mend: None,
    };
}

/// The items framed [bare](Frame::BARE) into `out`, each ending where
/// `ends` says.
pub(crate) fn bare_items<'a>(out: &'a [u8], ends: &'a [usize]) -> impl Iterator<Item = &'a [u8]> {
    let starts = std::iter::once(0).chain(ends.iter().copied());
    starts
        .zip(ends.iter().copied())
        .map(move |(start, end)| &out[start..end])
}

/// A streaming handler's items, whatever their type.
pub struct Items {
    source: Pin<Box<dyn Source>>,
    /// The call's span, kept open as long as its stream and entered while
    /// the stream is polled (disabled when no subscriber wants it).
    span: Span,
}

impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Items")
    }
}

/// What a poll of a stream gave: `Ok` once items are appended to the
/// buffer, the stream's error (it ends there, after the items appended
/// before it), or `None` at its end (likewise).
pub(crate) type Polled = Poll<Option<Result<(), ErrorObject>>>;

/// Where the items of one poll go: each framed into `out` until it holds
/// `room` bytes (one item at least), and, if `ends` is given, where each
/// ends in `out` noted there.
pub(crate) struct Buffer<'a> {
    pub(crate) out: &'a mut Vec<u8>,
    pub(crate) room: usize,
    pub(crate) ends: Option<&'a mut Vec<usize>>,
}

trait Source: Send {
    fn poll_into(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        frame: &Frame,
        into: Buffer<'_>,
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
    /// The items ready, in one call: a stream that is never pending pays
    /// its type-erased call once per buffer, not once per item.
    fn poll_into(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        frame: &Frame,
        into: Buffer<'_>,
    ) -> Polled {
        let this = self.project();
        if *this.panicked {
            return Poll::Ready(None);
        }
        let Buffer {
            out,
            room,
            mut ends,
        } = into;
        let mut stream = this.stream;
        let mut appended = false;
        // A stream that panics ends with an internal error, as a handler
        // that panics answers one: its subscriber is told, the rest of the
        // connection is not disturbed.
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            loop {
                let item = match stream.as_mut().poll_next(cx) {
                    Poll::Ready(Some(Ok(item))) => item,
                    Poll::Ready(Some(Err(err))) => return Poll::Ready(Some(Err(err.into()))),
                    Poll::Ready(None) => return Poll::Ready(None),
                    Poll::Pending if appended => return Poll::Ready(Some(Ok(()))),
                    Poll::Pending => return Poll::Pending,
                };
                if let Err(err) = frame.write(&item, out) {
                    return Poll::Ready(Some(Err(unserializable(&err))));
                }
                appended = true;
                if let Some(ends) = ends.as_deref_mut() {
                    ends.push(out.len());
                }
                if out.len() >= room {
                    return Poll::Ready(Some(Ok(())));
                }
            }
        }));
        polled.unwrap_or_else(|_| {
            *this.panicked = true;
            tracing::error!("a stream's producer panicked");
            Poll::Ready(Some(Err(ErrorObject::internal_error())))
        })
    }
}

#[cold]
fn unserializable(err: &serde_json::Error) -> ErrorObject {
    tracing::error!(%err, "a stream's item could not be serialized");
    ErrorObject::internal_error()
}

impl Items {
    /// Erases the type of a handler's `stream`, made in the span of its
    /// call (the current one), which then lasts as long as the stream.
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
            span: Span::current(),
        }
    }

    /// Polls for the items ready, each appended to `into` framed by
    /// `frame`, as many as it has room for.
    pub(crate) fn poll_into(
        &mut self,
        cx: &mut Context<'_>,
        frame: &Frame,
        into: Buffer<'_>,
    ) -> Polled {
        let _in_call = self.span.enter();
        let polled = self.source.as_mut().poll_into(cx, frame, into);
        if let Poll::Ready(Some(Err(error))) = &polled {
            crate::middleware::span::record_error(&self.span, error);
        }
        polled
    }
}
