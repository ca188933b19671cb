//! The handlers' side of a Server-Sent Events response: a bounded queue of
//! events, read by the response body as the client takes them.

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::streaming::{Frame, Item, Items};
use crate::wire::{self, Id};

/// How many events wait for the client at most; a handler sending more
/// waits until the client has read some.
pub(super) const QUEUE: usize = 16;

/// What goes in the queue.
pub(super) enum Event {
    /// Start the stream now, before any event: the call streams.
    Open,
    /// One whole event, `data: ...\n\n`.
    Data(Bytes),
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

    /// Sends `items` as the events of the call `id`, each a whole response,
    /// until they end, one fails (its error is the last event) or the
    /// client leaves.
    pub(crate) async fn pump(&self, id: Id<'_>, mut items: Items) {
        if self.queue.send(Event::Open).await.is_err() {
            return;
        }
        let frame = Frame {
            head: r#"data: {"jsonrpc":"2.0","result":"#.to_owned(),
            tail: format!(",\"id\":{}}}\n\n", id.as_json()),
        };
        while let Some(item) = items.next(&frame).await {
            let event = match item {
                Item::Message(event) => one_line(event),
                Item::Error(error) => {
                    let _ = self.send(&wire::failure(Some(id), &error)).await;
                    return;
                }
            };
            if self
                .queue
                .send(Event::Data(Bytes::from(event)))
                .await
                .is_err()
            {
                return;
            }
        }
    }
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
    // Bytes, not chars: a search for a `[char; 2]` decodes every character
    // of every event, and a line break is one byte in UTF-8.
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
    fn a_line_break_in_the_data_becomes_data_lines() {
        assert_eq!(data_event("{}"), "data: {}\n\n");
        assert_eq!(data_event("{\n\"a\":1}"), "data: {\ndata: \"a\":1}\n\n");
    }
}
