//! The peer's subscriptions on this end: their ids, their limits, and how
//! one starts and stops (the writer sends their items: see `producers.rs`,
//! and [`streaming`](crate::streaming)).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::producers::Producer;
use super::writer::Outbound;
use super::{Connection, Shared};
use crate::streaming::Items;
use crate::transport::Limits;
use crate::transport::sync::lock;
use crate::wire::{self, Id};
use crate::{ErrorObject, StreamInfo};

/// How many subscriptions a peer may hold: on its connection, and with
/// the peers of the other connections of its server.
#[derive(Clone)]
pub(crate) struct Budget {
    per_connection: usize,
    per_server: usize,
    /// The server's live subscriptions, all connections together.
    server: Arc<AtomicUsize>,
    /// This connection's: read without a lock by the idle checks.
    connection: Arc<AtomicUsize>,
}

impl Budget {
    /// The budget of a connection of a server with `limits`, whose
    /// connections count their subscriptions in `server`.
    pub(crate) fn of_server(limits: &Limits, server: Arc<AtomicUsize>) -> Self {
        Budget {
            per_connection: limits.subscriptions(),
            per_server: limits.server_subscriptions(),
            server,
            connection: Arc::default(),
        }
    }

    /// A connection on its own (a client's): only its own limit.
    pub(crate) fn unshared(per_connection: usize) -> Self {
        Budget {
            per_connection,
            per_server: usize::MAX,
            server: Arc::default(),
            connection: Arc::default(),
        }
    }

    /// The count of subscriptions the connection streams, to watch.
    pub(crate) fn streaming(&self) -> Arc<AtomicUsize> {
        self.connection.clone()
    }

    /// Whether the connection streams any subscription now.
    pub(crate) fn is_streaming(&self) -> bool {
        self.connection.load(Ordering::Acquire) > 0
    }

    /// Takes one place in the server's count and the connection's; `false`
    /// if the server's is full.
    fn take_place(&self) -> bool {
        let taken = self.server.fetch_add(1, Ordering::AcqRel);
        if taken >= self.per_server {
            self.server.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        self.connection.fetch_add(1, Ordering::AcqRel);
        true
    }

    fn give_back_place(&self) {
        self.connection.fetch_sub(1, Ordering::AcqRel);
        self.server.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a subscription holds while its producer runs, released however the
/// producer ends: its entry in the connection's table and its place in the
/// server's count.
pub(super) struct Held {
    shared: Arc<Shared>,
    subscription: String,
}

impl Held {
    pub(super) fn subscription(&self) -> &str {
        &self.subscription
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        lock(&self.shared.subscriptions)
            .live
            .remove(&self.subscription);
        self.shared.budget.give_back_place();
    }
}

/// The live subscriptions of one connection, by id.
#[derive(Default)]
pub(super) struct Subscriptions {
    /// Numbers the next one: ids are unique on their connection, which is
    /// the only place they mean anything.
    next: u64,
    live: HashSet<String>,
}

impl Connection {
    /// Subscribes the peer to `items`, the stream of its call `id` of a
    /// method streaming as `info`: answers the call with the new
    /// subscription's id, then hands the stream to the writer, which sends
    /// each item as a notification. Both go through the queue the writer
    /// reads in order, so the reply reaches the peer before the first item;
    /// it is `None` (already sent) unless the subscription was refused.
    pub(crate) async fn subscribe(
        &self,
        id: Id<'_>,
        info: &'static StreamInfo,
        items: Items,
    ) -> Option<String> {
        let Some(held) = self.open_subscription() else {
            return Some(wire::failure(Some(id), &too_many()));
        };
        let reply = wire::success(id, held.subscription());
        let producer = Box::new(Producer::new(held, info, items));
        // Closed: dropping the producer forgets the subscription.
        if self.enqueue(reply).await.is_ok() {
            let _ = self.shared.outbox.send(Outbound::Stream(producer)).await;
        }
        None
    }

    /// Ends the subscription `subscription`; `true` if it was live. The
    /// stop goes through the writer's queue ahead of the answer to the
    /// unsubscribe call, and the writer sends nothing of the subscription
    /// after it: the answer is the last the peer hears of it.
    pub(crate) async fn unsubscribe(&self, subscription: &str) -> bool {
        if !lock(&self.shared.subscriptions).live.remove(subscription) {
            return false;
        }
        let stop = Outbound::Stop(subscription.to_owned());
        let _ = self.shared.outbox.send(stop).await;
        true
    }

    /// A new subscription's hold (its id among it), unless the connection
    /// or its server has as many as it may.
    fn open_subscription(&self) -> Option<Held> {
        let budget = &self.shared.budget;
        let mut subscriptions = lock(&self.shared.subscriptions);
        if subscriptions.live.len() >= budget.per_connection || !budget.take_place() {
            return None;
        }
        subscriptions.next += 1;
        let id = format!("0x{:x}", subscriptions.next);
        subscriptions.live.insert(id.clone());
        Some(Held {
            shared: self.shared.clone(),
            subscription: id,
        })
    }
}

#[cold]
fn too_many() -> ErrorObject {
    ErrorObject::new(crate::code::SERVER_ERROR_LAST, "Too many subscriptions")
}
