//! A streaming call's items as an in-process client reads them: taken from
//! the handler's stream as the reader asks, each its JSON alone.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use serde_json::value::RawValue;

use super::{ClientError, RawItems};
use crate::ErrorObject;
use crate::streaming::{Buffer, Frame, Items, bare_items};

/// How many bytes of items are taken from the stream at most per poll.
const ROOM: usize = 16 * 1024;

/// `items` as a client reads them.
pub(crate) fn raw_items(items: Items) -> RawItems {
    Box::pin(LocalItems {
        items,
        out: Vec::new(),
        ends: Vec::new(),
        ready: VecDeque::new(),
        failed: None,
        ended: false,
    })
}

struct LocalItems {
    items: Items,
    /// The items of the last poll, framed bare, and where each ends.
    out: Vec<u8>,
    ends: Vec<usize>,
    ready: VecDeque<Box<RawValue>>,
    /// The error item that ended the stream, after the items before it.
    failed: Option<ErrorObject>,
    ended: bool,
}

impl Stream for LocalItems {
    type Item = Result<Box<RawValue>, ClientError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(item) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(item)));
            }
            if let Some(error) = this.failed.take() {
                return Poll::Ready(Some(Err(ClientError::Rpc(error))));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            this.out.clear();
            this.ends.clear();
            let into = Buffer {
                out: &mut this.out,
                room: ROOM,
                ends: Some(&mut this.ends),
            };
            let polled = ready!(this.items.poll_into(cx, &Frame::BARE, into));
            // Serialized by the stream itself: each is one JSON value.
            let items = bare_items(&this.out, &this.ends)
                .filter_map(|item| std::str::from_utf8(item).ok())
                .filter_map(|item| RawValue::from_string(item.to_owned()).ok());
            this.ready.extend(items);
            match polled {
                Some(Ok(())) => {}
                Some(Err(error)) => {
                    this.failed = Some(error);
                    this.ended = true;
                }
                None => this.ended = true,
            }
        }
    }
}
