//! The peer's subscriptions as the writer sees them: streams it pulls items
//! from whenever the peer has taken what was sent before.
//!
//! The writer polls each producer itself, in the connection's task, and
//! writes each item straight into its own buffer: no task per
//! subscription, no queue between the stream and the socket, no message
//! allocated per item. A peer that stops reading stops the writer, and the
//! writer stops pulling: the producers wait in their streams.

use std::task::{Context, Poll};

use super::Serialized;
use super::peer_subscriptions::Held;
use crate::streaming::{Buffer, Frame, Items};
use crate::{ErrorObject, StreamInfo};

/// The largest buffer kept from one write to the next: a stream of big
/// items gives its buffer back to the allocator rather than hold it.
const KEPT: usize = 128 * 1024;

/// The bytes a producer may add in its turn: enough that a stream alone
/// is pulled from a few times per write, few enough that streams sharing
/// a connection take turns many times per write.
const TURN: usize = 4 * 1024;

/// A subscription's stream with what it is sent with.
pub(crate) struct Producer {
    /// Released when the producer is dropped, however it ends.
    held: Held,
    info: &'static StreamInfo,
    items: Items,
    /// Around each item: the notification's head and tail.
    frame: Frame,
}

impl Producer {
    pub(super) fn new(held: Held, info: &'static StreamInfo, items: Items) -> Self {
        let frame = frame(info, held.subscription(), "result");
        Producer {
            held,
            info,
            items,
            frame,
        }
    }

    fn subscription(&self) -> &str {
        self.held.subscription()
    }

    /// Appends to `out` the notification that ends the subscription, with
    /// `member` (`"end"` or `"error"`) in place of `"result"`.
    #[cold]
    fn write_last<T: serde::Serialize>(&self, member: &str, value: &T, out: &mut Vec<u8>) {
        let frame = frame(self.info, self.subscription(), member);
        // Cannot fail: `true`, or an error object.
        let _ = frame.write(value, out);
    }
}

/// The text around each item: `{"jsonrpc":"2.0","method":NAME,"params":{"subscription":ID,"MEMBER":` and `}}`.
fn frame(info: &StreamInfo, subscription: &str, member: &str) -> Frame {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    Frame {
        head: format!(
            r#"{{"jsonrpc":"2.0","method":{},"params":{{"subscription":{},"{member}":"#,
            quoted(info.notification()),
            quoted(subscription),
        ),
        tail: "}}".to_owned(),
        mend: None,
    }
}

/// The producers of one connection, owned by its writer.
#[derive(Default)]
pub(super) struct Producers {
    live: Vec<Producer>,
    /// The producer whose turn is next: each gives one item per round.
    turn: usize,
    /// The messages gathered for the next write, one after another.
    gathered: Vec<u8>,
    /// Where each of them ends in `gathered`.
    ends: Vec<usize>,
    /// Set once the connection is closing: no producer starts after.
    closed: bool,
}

impl Producers {
    /// Starts pulling from `producer`; once closed, ends it at once (see
    /// [`close`](Self::close)).
    pub(super) fn start(&mut self, producer: Producer) {
        match self.closed {
            false => self.live.push(producer),
            true => self.cut(producer),
        }
    }

    /// Stops the producer of `subscription`, if it still runs.
    pub(super) fn stop(&mut self, subscription: &str) {
        if let Some(at) = self
            .live
            .iter()
            .position(|producer| producer.subscription() == subscription)
        {
            self.live.swap_remove(at);
        }
    }

    /// Drops every producer, now and from now on: the connection is
    /// closing. Each subscription still running ends with the shutdown
    /// notice ([`ErrorObject::shutting_down`]) in place of an item, gathered
    /// to be sent last, so its client tells it from a stream that completed
    /// and from a connection lost.
    pub(super) fn close(&mut self) {
        self.closed = true;
        for producer in std::mem::take(&mut self.live) {
            self.cut(producer);
        }
    }

    /// Drops `producer`, its shutdown notice gathered.
    #[cold]
    fn cut(&mut self, producer: Producer) {
        producer.write_last("error", &ErrorObject::shutting_down(), &mut self.gathered);
        self.ends.push(self.gathered.len());
    }

    /// Gathers the messages the producers have ready, in turns (up to
    /// [`TURN`] bytes each per round, one item at least), until they hold
    /// `room` bytes or none has one ready (then each to wake the writer
    /// when it has); how many bytes.
    pub(super) fn gather(&mut self, cx: &mut Context<'_>, room: usize) -> usize {
        let mut idle = 0;
        while self.gathered.len() < room && idle < self.live.len() {
            if self.turn >= self.live.len() {
                self.turn = 0;
            }
            let at = self.turn;
            self.turn += 1;
            let producer = &mut self.live[at];
            let out = &mut self.gathered;
            let into = Buffer {
                room: room.min(out.len() + TURN),
                out,
                ends: Some(&mut self.ends),
            };
            match producer.items.poll_into(cx, &producer.frame, into) {
                Poll::Pending => {
                    idle += 1;
                    continue;
                }
                Poll::Ready(Some(Ok(()))) => {}
                Poll::Ready(Some(Err(error))) => {
                    self.live.swap_remove(at).write_last("error", &error, out);
                    self.ends.push(out.len());
                }
                Poll::Ready(None) => {
                    self.live.swap_remove(at).write_last("end", &true, out);
                    self.ends.push(out.len());
                }
            }
            idle = 0;
        }
        self.gathered.len()
    }

    /// Whether messages are gathered, waiting to be written.
    pub(super) fn has_gathered(&self) -> bool {
        !self.gathered.is_empty()
    }

    /// The messages gathered.
    pub(super) fn gathered(&self) -> Serialized<'_> {
        Serialized::new(&self.gathered, &self.ends)
    }

    /// Forgets the messages gathered, once written; how many bytes they were.
    pub(super) fn clear(&mut self) -> usize {
        let len = self.gathered.len();
        self.gathered.clear();
        self.ends.clear();
        if self.gathered.capacity() > KEPT {
            self.gathered = Vec::new();
        }
        len
    }
}
