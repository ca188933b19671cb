//! The peer's messages in the order their methods ask for, and responses that never wait on handlers.

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;

use super::schedule::{Kind, Schedule, Ticket};
use super::{Shared, deliver, our_subscriptions};
use crate::Router;
use crate::router::PeerMessage;
use crate::wire::{self, Head, Incoming};

/// Admits the peer's requests and notifications into the connection's
/// [`Schedule`], each as its method's [`Turn`] says, and hands responses to
/// the calls waiting for them.
///
/// Without declared turns, notifications run one after another, and what
/// arrives after one waits until it has run (an LSP server sees
/// `didChange` before the `hover` that follows it; an MCP client sees
/// every progress notification before the result), while requests run
/// concurrently and nothing waits for them. A router that declares turns
/// has each message's method read before it runs; a batch there runs alone.
pub(super) struct Order {
    schedule: Schedule,
    /// The router declares turns.
    declared: bool,
}

/// A message admitted: its ticket, and what superseding needs.
pub(super) struct Admitted {
    pub(super) ticket: Ticket,
    /// The key of a request whose method declares one: an exclusive
    /// message with the same key may supersede it.
    pub(super) key: Option<Box<str>>,
    /// The key of an exclusive message that supersedes: the shared
    /// requests with it still in flight are to be cancelled.
    pub(super) supersedes: Option<Box<str>>,
}

impl Order {
    pub(super) fn new(router: &Router) -> Self {
        Order {
            schedule: Schedule::new(),
            declared: router.declares_turns(),
        }
    }

    /// Whether each message must be read for its method before it runs.
    pub(super) fn is_declared(&self) -> bool {
        self.declared
    }

    /// Admits the next message to run: a lone notification (read at the
    /// reader, its method and params at hand), or a request or a batch
    /// (whose head is read here only when the router declares turns).
    #[inline]
    pub(super) fn admit(&mut self, router: &Router, message: &PeerMessage) -> Admitted {
        let notification = matches!(message, PeerMessage::Notification(_));
        // Nearly every router declares no turns: that case costs the read
        // loop no call.
        match self.declared {
            false => self.undeclared(notification),
            true => self.admit_declared(router, message, notification),
        }
    }

    /// Admits a message as its method's declared turn says.
    fn admit_declared(
        &mut self,
        router: &Router,
        message: &PeerMessage,
        notification: bool,
    ) -> Admitted {
        let head = match message {
            PeerMessage::Notification(read) => Head::of(read),
            // A batch: what its entries declare is not looked into.
            PeerMessage::Text(batch) if !wire::is_object(batch) => {
                return Admitted {
                    ticket: self.schedule.admit(Kind::Exclusive),
                    key: None,
                    supersedes: None,
                };
            }
            PeerMessage::Text(request) => match Head::read(request) {
                Some(head) => head,
                None => return self.undeclared(false),
            },
        };
        let Some(turn) = head
            .method
            .as_deref()
            .and_then(|method| router.turn_of(method))
        else {
            return self.undeclared(notification);
        };
        let kind = match (turn.access(), notification) {
            (Some(crate::Access::Exclusive), _) => Kind::Exclusive,
            (Some(crate::Access::Shared), _) => Kind::Shared,
            (None, false) => Kind::Loose,
            (None, true) => Kind::InOrder,
        };
        let key = turn.key_pointer().and_then(|pointer| head.key(pointer));
        let supersedes = match kind == Kind::Exclusive && turn.supersedes() {
            true => key.clone(),
            false => None,
        };
        Admitted {
            ticket: self.schedule.admit(kind),
            key: key.filter(|_| !notification && matches!(kind, Kind::Shared | Kind::Loose)),
            supersedes,
        }
    }

    /// Admits a message whose method declares no turn: a notification in
    /// order, a request loose.
    #[inline]
    fn undeclared(&mut self, notification: bool) -> Admitted {
        Admitted {
            ticket: self.schedule.admit(match notification {
                true => Kind::InOrder,
                false => Kind::Loose,
            }),
            key: None,
            supersedes: None,
        }
    }

    /// Whether every exclusive and in-order message admitted has run.
    pub(super) fn is_settled(&self) -> bool {
        self.schedule.is_settled()
    }

    /// Resolves once every exclusive and in-order message admitted has run.
    pub(super) fn settled(&self) -> impl Future<Output = ()> + Send + use<> {
        self.schedule.settled()
    }

    /// Hands `responses` (from `message`) to their calls. A call the
    /// connection's owner made gets its response once the messages before
    /// it have run; a call a handler made gets it at once: the handler may
    /// be what those messages wait for, and must never wait on itself.
    pub(super) fn deliver(
        &self,
        shared: &Arc<Shared>,
        message: &Bytes,
        responses: Vec<(Option<u64>, &serde_json::value::RawValue)>,
    ) {
        // Before any answer is handed over (now or once settled) and before
        // the next message is read: the items after it find their stream.
        our_subscriptions::open_answered(shared, &responses);
        if self.is_settled() {
            return deliver(shared, message, responses);
        }
        let (later, now): (Vec<_>, Vec<_>) = responses
            .into_iter()
            .partition(|(id, _)| shared.is_owners_call(*id));
        if !now.is_empty() {
            deliver(shared, message, now);
        }
        if later.is_empty() {
            return;
        }
        let ids: Vec<Option<u64>> = later.into_iter().map(|(id, _)| id).collect();
        let (shared, message, settled) = (shared.clone(), message.clone(), self.settled());
        tokio::spawn(async move {
            settled.await;
            match wire::classify(&message) {
                Incoming::Responses(responses) | Incoming::Mixed { responses, .. } => {
                    let owners = responses.into_iter().filter(|(id, _)| ids.contains(id));
                    deliver(&shared, &message, owners.collect())
                }
                Incoming::Notification(_) | Incoming::ForRouter => {}
            }
        });
    }
}
