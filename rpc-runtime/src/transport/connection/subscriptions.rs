//! The peer's subscriptions on this end: each one a task that sends a
//! streaming handler's items as notifications (see [`streaming`](crate::streaming)).

use std::collections::HashMap;
use std::pin::pin;
use std::sync::Arc;

use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Connection, Shared};
use crate::streaming::{Frame, Item, Items};
use crate::transport::sync::lock;
use crate::transport::sync::rare_events::{self, Raced, Rare};
use crate::wire::{self, Id};
use crate::{ErrorObject, StreamInfo};

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

impl Subscriptions {
    pub(super) fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
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
        let Some((subscription, stop, stopped)) = self.open_subscription() else {
            return Some(wire::failure(
                Some(id),
                &too_many(self.shared.max_subscriptions),
            ));
        };
        let stopped = stopped.drop_guard();
        if self
            .enqueue(wire::success(id, &subscription))
            .await
            .is_err()
        {
            self.forget_subscription(&subscription);
            return None;
        }
        tokio::spawn(produce(
            self.shared.clone(),
            subscription,
            info,
            items,
            stop,
            stopped,
        ));
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

    /// A new subscription's id and its two tokens (see [`Live`]), unless
    /// the connection has as many as it may.
    fn open_subscription(&self) -> Option<(String, CancellationToken, CancellationToken)> {
        let mut subscriptions = lock(&self.shared.subscriptions);
        if subscriptions.live.len() >= self.shared.max_subscriptions {
            return None;
        }
        subscriptions.next += 1;
        let id = format!("0x{:x}", subscriptions.next);
        let live = Live {
            stop: CancellationToken::new(),
            stopped: CancellationToken::new(),
        };
        let tokens = (live.stop.clone(), live.stopped.clone());
        subscriptions.live.insert(id.clone(), live);
        Some((id, tokens.0, tokens.1))
    }

    fn forget_subscription(&self, subscription: &str) {
        lock(&self.shared.subscriptions).live.remove(subscription);
    }
}

/// Sends each of `items` as a notification of `subscription` until the
/// stream ends (announced by a last notification), fails (the error is the
/// last notification), is stopped, or the connection closes.
async fn produce(
    shared: Arc<Shared>,
    subscription: String,
    info: &'static StreamInfo,
    mut items: Items,
    stop: CancellationToken,
    _stopped: DropGuard,
) {
    let frame = frame(info, &subscription, "result");
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
            Some(Item::Error(error)) => (last(info, &subscription, "error", &error), true),
            None => (last(info, &subscription, "end", &true), true),
        };
        let sent = match ending.race(pin!(shared.outbox.send(message))).await {
            Raced::Interrupted(_) => break,
            Raced::Done(sent) => sent.is_ok(),
        };
        if last || !sent {
            break;
        }
    }
    lock(&shared.subscriptions).live.remove(&subscription);
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
fn too_many(limit: usize) -> ErrorObject {
    #[derive(serde::Serialize)]
    struct Limit {
        limit: usize,
    }
    ErrorObject::new(crate::code::SERVER_ERROR_LAST, "Too many subscriptions")
        .with_data(&Limit { limit })
}
