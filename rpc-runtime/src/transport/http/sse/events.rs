//! The handlers' side of a Server-Sent Events response: a bounded queue of
//! events, read by the response body as the client takes them, and a
//! streaming method's items, which the body pulls itself.

use std::task::{Context, Poll, ready};

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::streaming::{Frame, Items};
use crate::wire::Id;

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
}

impl EventSender {
    pub(super) fn new(queue: mpsc::Sender<Event>) -> Self {
        EventSender { queue }
    }

    /// Queues one JSON-RPC message as an event; `false` once the client has gone.
    pub(crate) async fn send(&self, message: &str) -> bool {
        self.queue
            .send(Event::Data(Bytes::from(data_event(message))))
            .await
            .is_ok()
    }

    /// Hands `items` to the response body, which sends each as an event of
    /// the call `id` (a whole response) as fast as the client reads, until
    /// they end, one fails (its error is the last event) or the client
    /// leaves.
    pub(crate) async fn pump(&self, id: Id<'_>, items: Items) {
        let tail = format!(",\"id\":{}}}\n\n", id.as_json());
        let events = ItemEvents {
            items,
            result: Frame {
                head: r#"data: {"jsonrpc":"2.0","result":"#.to_owned(),
                tail: tail.clone(),
            },
            error: Frame {
                head: r#"data: {"jsonrpc":"2.0","error":"#.to_owned(),
                tail,
            },
        };
        let _ = self.queue.send(Event::Items(Box::new(events))).await;
    }
}

impl ItemEvents {
    /// Appends the next item's event to `out` when it is ready; `Ready(false)`
    /// once the stream has ended (with its error event, if it failed).
    pub(super) fn poll_event(&mut self, cx: &mut Context<'_>, out: &mut Vec<u8>) -> Poll<bool> {
        let start = out.len();
        let (more, frame) = match ready!(self.items.poll_into(cx, &self.result, out)) {
            Some(Ok(())) => (true, &self.result),
            Some(Err(error)) => {
                // Cannot fail: an error object serializes.
                let _ = self.error.write(&error, out);
                (false, &self.error)
            }
            None => return Poll::Ready(false),
        };
        // The head and the tail are ours, without a line break in their data.
        let value = &out[start + frame.head.len()..out.len() - frame.tail.len()];
        if has_line_break(value) {
            split_lines(out, start);
        }
        Poll::Ready(more)
    }
}

/// Whether `bytes` hold a `\n` or a `\r`: serde_json writes one only from
/// raw JSON it passes on, so nearly never, and this looks at eight bytes at
/// a time.
fn has_line_break(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // The classic test for a zero byte in a word, on the word XOR the byte
    // sought in every place.
    let holds = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let word = u64::from_ne_bytes(eight);
        if holds(word, b'\n') || holds(word, b'\r') {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b == b'\n' || b == b'\r')
}

/// The event at `out[start..]` with the line breaks inside its data split
/// into `data:` lines.
#[cold]
fn split_lines(out: &mut Vec<u8>, start: usize) {
    let event = String::from_utf8_lossy(&out[start..]).into_owned();
    out.truncate(start);
    out.extend_from_slice(one_line(event).as_bytes());
}

/// `message` as the data of one event.
pub(super) fn data_event(message: &str) -> String {
    one_line(format!("data: {message}\n\n"))
}

/// `event` with any line break inside its data split into `data:` lines:
/// a result holding raw JSON may carry one, and the client joins the lines
/// back with the `\n` it had.
fn one_line(event: String) -> String {
    let data = &event[..event.len() - 2];
    if !data.bytes().any(|b| b == b'\n' || b == b'\r') {
        return event;
    }
    let body = data.strip_prefix("data: ").unwrap_or(data);
    let mut split = String::with_capacity(event.len() + 16);
    for line in body.split(['\n', '\r']) {
        split.push_str("data: ");
        split.push_str(line);
        split.push('\n');
    }
    split.push('\n');
    split
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_are_found_in_any_place_of_a_word() {
        for len in 0..20 {
            let plain = vec![b'x'; len];
            assert!(!has_line_break(&plain));
            for at in 0..len {
                for byte in [b'\n', b'\r'] {
                    let mut broken = plain.clone();
                    broken[at] = byte;
                    assert!(has_line_break(&broken), "{byte} at {at} of {len}");
                }
            }
        }
        assert!(!has_line_break("\u{e9}\t\u{b}\u{c}\u{8a}é".as_bytes()));
    }

    #[test]
    fn a_line_break_in_the_data_becomes_data_lines() {
        assert_eq!(data_event("{}"), "data: {}\n\n");
        assert_eq!(data_event("{\n\"a\":1}"), "data: {\ndata: \"a\":1}\n\n");
    }
}
