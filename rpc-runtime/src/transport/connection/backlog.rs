//! What the read loop reads past while the peer's requests wait for room: the responses a handler waits for.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use super::Shared;
use super::cancel::{Cancels, request_id};
use super::order::Order;
use super::reader::is_cancel;
use crate::transport::Inbound;
use crate::wire::{self, Incoming};
use crate::{ErrorObject, code};

/// Messages read ahead of their turn. When every place for the peer's
/// requests is taken, the read loop stops reading, so that a peer that
/// sends faster than it is served is slowed down. But a handler may be
/// waiting for the peer's response to a call of its own (LSP's
/// `workspace/configuration`), and that response may come after requests
/// that wait for the handler: with nothing read, neither would ever go on.
/// So while a handler waits, the loop reads on: responses go to their
/// calls and cancel notifications act at once; everything else is held
/// here, in order, for its turn, up to as many messages as the connection
/// has places. Past that, a request is answered at once with `-32000`
/// "Server busy" (it never ran; its client may send it again) and held no
/// more; a notification (which cannot be refused without losing it) is
/// held, and the loop stops reading until the backlog shrinks.
pub(super) struct Backlog {
    held: VecDeque<io::Result<Inbound>>,
    room: usize,
    /// The peer closed, or the read failed: nothing more to read.
    ended: bool,
}

impl Backlog {
    pub(super) fn new(room: usize) -> Self {
        Backlog {
            held: VecDeque::new(),
            room,
            ended: false,
        }
    }

    /// The next message held, in the order it was read.
    pub(super) fn next(&mut self) -> Option<io::Result<Inbound>> {
        self.held.pop_front()
    }

    /// Whether another message may be read ahead.
    pub(super) fn can_read(&self) -> bool {
        !self.ended && self.held.len() <= self.room
    }

    /// Takes a message read ahead: a response goes to its call, a cancel
    /// acts, a request over the room is refused, anything else is held.
    pub(super) async fn hold(
        &mut self,
        read: io::Result<Inbound>,
        order: &Order,
        shared: &Arc<Shared>,
        cancels: &mut Option<Cancels>,
    ) {
        if let Ok(Inbound::Message(message)) = &read {
            match wire::classify(message) {
                Incoming::Responses(responses) => return order.deliver(shared, message, responses),
                Incoming::Notification if is_cancel(cancels, message) => return,
                Incoming::ForRouter if self.held.len() >= self.room => {
                    if let Some(busy) = busy(message) {
                        let _ = shared.outbox.send(busy.into()).await;
                        return;
                    }
                }
                _ => {}
            }
        }
        self.ended = !matches!(read, Ok(Inbound::Message(_) | Inbound::TooLarge));
        self.held.push_back(read);
    }
}

/// The refusal of the request `message`; `None` if it is no single request.
#[cold]
fn busy(message: &[u8]) -> Option<String> {
    let id = wire::Id::new(request_id(message)?)?;
    let error = ErrorObject::new(code::SERVER_ERROR_LAST, "Server busy").with_data(&serde_json::json!({
        "reason": "every place for a request is taken while a handler waits for this peer's answer"
    }));
    Some(wire::failure(Some(id), &error))
}
