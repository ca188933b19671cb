//! What the read loop reads past while the peer's requests wait for room: the responses a handler waits for.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use super::Shared;
use super::cancel::Cancels;
use super::order::Order;
use super::reader::is_cancel;
use crate::transport::Inbound;
use crate::wire::{self, Incoming, Notification};
use crate::{ErrorObject, code};

/// Messages read ahead of their turn. When every place for the peer's
/// requests is taken, the read loop stops reading, so that a peer that
/// sends faster than it is served is slowed down. But a handler may be
/// waiting for the peer's response to a call of its own (LSP's
/// `workspace/configuration`), and that response may come after messages
/// that wait for the handler: with nothing read, neither would ever go on.
/// So while a handler waits, the loop reads on: responses go to their
/// calls at once and cancel notifications act; the peer's requests and
/// notifications are held here, in order, for their turn, none refused
/// (a notification cannot be, and a request deserves its answer).
///
/// What is held is bounded in bytes, not messages: a message is held while
/// the bytes held before it are under the budget
/// ([`Limits::max_backlog_size`](crate::transport::Limits::max_backlog_size)).
/// A peer that sends past the budget while the handler still waits is over
/// it: the read loop ends the connection (see [`over_budget`]). Pausing the
/// reading instead would leave the awaited response unread behind the
/// bytes not read: the deadlock this backlog exists to prevent.
pub(super) struct Backlog {
    /// What is held, each with what it costs, by [`cost`].
    held: VecDeque<(usize, Held)>,
    /// What `held` costs in all.
    bytes: usize,
    budget: usize,
    /// The peer closed, or the read failed: nothing more to read.
    ended: bool,
}

/// A message held: as it was read, or a notification already read (it is
/// not read again when its turn comes).
pub(super) enum Held {
    Read(io::Result<Inbound>),
    Notification(Notification),
}

/// The backlog is full: the connection must end.
#[derive(Debug)]
pub(super) struct OverBudget;

/// What holding one message costs besides its bytes (its slot, the shared
/// buffer's header), so that a flood of tiny messages is bounded too.
const PER_MESSAGE: usize = 64;

/// The bytes a held read counts for.
fn cost(read: &io::Result<Inbound>) -> usize {
    match read {
        Ok(Inbound::Message(message)) => message.len() + PER_MESSAGE,
        _ => PER_MESSAGE,
    }
}

impl Backlog {
    /// An empty backlog that holds up to `budget` bytes.
    pub(super) fn new(budget: usize) -> Self {
        Backlog {
            held: VecDeque::new(),
            bytes: 0,
            budget,
            ended: false,
        }
    }

    /// The next message held, in the order it was read.
    pub(super) fn next(&mut self) -> Option<Held> {
        let (cost, next) = self.held.pop_front()?;
        self.bytes -= cost;
        Some(next)
    }

    /// Whether another message may be read ahead.
    pub(super) fn can_read(&self) -> bool {
        !self.ended
    }

    /// Takes a message read ahead: a response goes to its call, a cancel
    /// acts, anything else is held (a notification as read), unless the
    /// backlog is already full.
    pub(super) fn hold(
        &mut self,
        read: io::Result<Inbound>,
        order: &Order,
        shared: &Arc<Shared>,
        cancels: &mut Option<Cancels>,
    ) -> Result<(), OverBudget> {
        let cost = cost(&read);
        let held = match &read {
            Ok(Inbound::Message(message)) => match wire::classify(message) {
                Incoming::Responses(responses) => {
                    order.deliver(shared, message, responses);
                    return Ok(());
                }
                Incoming::Notification(notification) if is_cancel(cancels, &notification) => {
                    return Ok(());
                }
                Incoming::Notification(notification) => Held::Notification(notification),
                Incoming::ForRouter | Incoming::Mixed { .. } => Held::Read(read),
            },
            _ => Held::Read(read),
        };
        // The end of the input is always held: it is the last thing read.
        self.ended = !matches!(
            held,
            Held::Notification(_) | Held::Read(Ok(Inbound::Message(_) | Inbound::TooLarge))
        );
        if !self.ended && self.bytes >= self.budget {
            return Err(OverBudget);
        }
        self.bytes += cost;
        self.held.push_back((cost, held));
        Ok(())
    }
}

/// Ends a connection whose backlog is full: tells the peer why (an error
/// with a `null` id, as for a message that cannot be answered otherwise)
/// and drops the handlers still running, the one waiting for the peer among
/// them: what they would answer can no longer be read in turn.
#[cold]
pub(super) async fn over_budget(shared: &Shared, budget: usize) {
    tracing::warn!(
        budget,
        "the peer sent more than the backlog holds while a handler waited for its answer: closing"
    );
    let error = ErrorObject::new(code::SERVER_ERROR_LAST, "Backlog over budget").with_data(
        &serde_json::json!({
            "reason": "more was sent than the connection holds while a handler waits for this peer's answer",
            "budget": budget,
        }),
    );
    let _ = shared.outbox.send(wire::failure(None, &error).into()).await;
    shared.unreachable.cancel();
}
