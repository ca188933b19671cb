//! The peer's subscriptions on this end: each one a task that sends a
//! streaming handler's items as notifications (see [`streaming`](crate::streaming)).

use std::collections::HashMap;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Connection, Shared};
use crate::streaming::{Frame, Item, Items};
use crate::transport::Limits;
use crate::transport::sync::lock;
use crate::transport::sync::rare_events::{self, Raced, Rare};
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
/// producer ends: its entry in the connection's table, its place in the
/// server's count, and (last) the signal that nothing more of it is queued.
struct Held {
    shared: Arc<Shared>,
    subscription: String,
    _stopped: DropGuard,
}

impl Drop for Held {
    fn drop(&mut self) {
        lock(&self.shared.subscriptions)
            .live
            .remove(&self.subscription);
        self.shared.budget.give_back_place();
    }
}

/// The live subscriptions of one connection.
#[derive(Default)]
pub(super) struct Subscriptions {
    /// Numbers the next one: ids are unique on their connection, which is
    /// the only place they mean anything.
    next: u64,
    live: HashMap<String, Live>,
}

/// A running subscription, as its table sees it.
struct Live {
    /// Stops the producer.
    stop: CancellationToken,
    /// Cancelled once the producer has stopped: nothing more of it is queued.
    stopped: CancellationToken,
}

impl Connection {
    /// Subscribes the peer to `items`, the stream of its call `id` of a
    /// method streaming as `info`: answers the call with the new
    /// subscription's id, then sends each item as a notification, in a
    /// task of the connection. The reply goes through the same queue as the
    /// items, so it reaches the peer before the first of them; it is `None`
    /// (already sent) unless the subscription was refused.
    pub(crate) async fn subscribe(
        &self,
        id: Id<'_>,
        info: &'static StreamInfo,
        items: Items,
    ) -> Option<String> {
        let Some((stop, held)) = self.open_subscription() else {
            return Some(wire::failure(Some(id), &too_many()));
        };
        // Closed: dropping `held` forgets the subscription.
        if self
            .enqueue(wire::success(id, &held.subscription))
            .await
            .is_err()
        {
            return None;
        }
        tokio::spawn(produce(held, info, items, stop));
        None
    }

    /// Ends the subscription `subscription`; `true` if it was live. Once this
    /// returns, no more of its items is queued: the answer to the
    /// unsubscribe call is the last the peer hears of it.
    pub(crate) async fn unsubscribe(&self, subscription: &str) -> bool {
        let Some(live) = lock(&self.shared.subscriptions).live.remove(subscription) else {
            return false;
        };
        live.stop.cancel();
        live.stopped.cancelled().await;
        true
    }

    /// A new subscription: the token that stops its producer, and what it
    /// holds while it runs (its id among them), unless the connection or
    /// its server has as many as it may.
    fn open_subscription(&self) -> Option<(CancellationToken, Held)> {
        let budget = &self.shared.budget;
        let mut subscriptions = lock(&self.shared.subscriptions);
        if subscriptions.live.len() >= budget.per_connection || !budget.take_place() {
            return None;
        }
        subscriptions.next += 1;
        let id = format!("0x{:x}", subscriptions.next);
        let live = Live {
            stop: CancellationToken::new(),
            stopped: CancellationToken::new(),
        };
        let (stop, stopped) = (live.stop.clone(), live.stopped.clone());
        subscriptions.live.insert(id.clone(), live);
        let held = Held {
            shared: self.shared.clone(),
            subscription: id,
            _stopped: stopped.drop_guard(),
        };
        Some((stop, held))
    }
}

/// Sends each of `items` as a notification of `subscription` until the
/// stream ends (announced by a last notification), fails (the error is the
/// last notification), is stopped, or the connection closes.
async fn produce(held: Held, info: &'static StreamInfo, mut items: Items, stop: CancellationToken) {
    let (shared, subscription) = (&held.shared, held.subscription.as_str());
    let frame = frame(info, subscription, "result");
    // Looked at per item only as a flag: a `select!` on the two tokens
    // would take their mutexes twice per item.
    let mut ending = Rare::new(rare_events::either(
        stop.cancelled_owned(),
        shared.closing.clone().cancelled_owned(),
    ));
    loop {
        let next = match ending.race(pin!(items.next(&frame))).await {
            Raced::Interrupted(_) => break,
            Raced::Done(next) => next,
        };
        let (message, last) = match next {
            Some(Item::Message(message)) => (message, false),
            Some(Item::Error(error)) => (last(info, subscription, "error", &error), true),
            None => (last(info, subscription, "end", &true), true),
        };
        let sent = match ending.race(pin!(shared.outbox.send(message))).await {
            Raced::Interrupted(_) => break,
            Raced::Done(sent) => sent.is_ok(),
        };
        if last || !sent {
            break;
        }
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
    }
}

/// The notification that ends a subscription, with `member` (`"end"` or
/// `"error"`) in place of `"result"`.
#[cold]
fn last<T: serde::Serialize>(
    info: &StreamInfo,
    subscription: &str,
    member: &str,
    value: &T,
) -> String {
    let frame = frame(info, subscription, member);
    wire::framed(&frame.head, value, &frame.tail).unwrap_or_default()
}

#[cold]
fn too_many() -> ErrorObject {
    ErrorObject::new(crate::code::SERVER_ERROR_LAST, "Too many subscriptions")
}
