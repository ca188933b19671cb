//! Cancelling the peer's requests in flight, by the router's cancel policy.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Weak};

use serde_json::value::RawValue;

use super::reader::Served;
use crate::CancelPolicy;
use crate::Router;
use crate::cancel::{RequestKey, WATCH, Watch};

/// The peer's requests that run as tasks of the connection, by id, for its
/// cancel notifications to find. Owned by the read loop: no lock.
pub(super) struct Cancels {
    policy: Arc<CancelPolicy>,
    /// Weak: a request that has finished holds no entry alive, and its
    /// entry is swept out as more come.
    running: HashMap<RequestKey, Weak<Watch>>,
    /// The size at which finished entries are next swept out; at least
    /// twice the live ones, so that sweeping costs each request O(1).
    sweep_at: usize,
}

/// What a request needs to be cancelled: its watch and its id.
pub(super) struct Cancellable {
    watch: Arc<Watch>,
    id: Box<RawValue>,
    policy: Arc<CancelPolicy>,
}

impl Cancels {
    /// The connection's registry, if its router has a cancel policy.
    pub(super) fn of(router: &Router, max_in_flight: usize) -> Option<Self> {
        Some(Cancels {
            policy: router.shared_cancel_policy()?.clone(),
            running: HashMap::new(),
            sweep_at: max_in_flight.saturating_mul(2).max(16),
        })
    }

    /// Acts on `notification` if it is the policy's cancel: `true` when it
    /// was, and must go no further.
    pub(super) fn cancel(&mut self, notification: &[u8]) -> bool {
        let Some(id) = self.policy.cancelled_by(notification) else {
            return false;
        };
        // Unknown, finished, or no id at all: nothing to do.
        if let Some(watch) = id
            .and_then(|id| self.running.remove(&id))
            .and_then(|watch| watch.upgrade())
        {
            tracing::debug!("the peer cancelled a request in flight");
            watch.cancel();
        }
        true
    }

    /// Registers the single request `request`, about to run as a task;
    /// `None` for a batch or a notification, which cannot be cancelled.
    pub(super) fn register(&mut self, request: &[u8]) -> Option<Cancellable> {
        let id = request_id(request)?;
        let key = RequestKey::of(id)?;
        if self.running.len() >= self.sweep_at {
            self.running.retain(|_, watch| watch.strong_count() > 0);
            self.sweep_at = self.sweep_at.max(self.running.len() * 2);
        }
        let watch = Arc::new(Watch::default());
        self.running.insert(key, Arc::downgrade(&watch));
        Some(Cancellable {
            watch,
            id: id.to_owned(),
            policy: self.policy.clone(),
        })
    }
}

impl Cancellable {
    /// Runs `call` until it finishes or is cancelled: one answer either
    /// way. After a cancel, a handler that watches its cancellation gets
    /// the grace period, then it is dropped before the answer goes out, and
    /// its own result is discarded.
    pub(super) async fn run(self, call: impl Future<Output = Served>) -> Served {
        let Cancellable { watch, id, policy } = self;
        {
            let mut call = pin!(WATCH.scope(watch.clone(), call));
            tokio::select! {
                biased;
                served = &mut call => return served,
                () = watch.cancelled() => {}
            }
            if watch.is_watched() {
                let _ = tokio::time::timeout(policy.grace(), &mut call).await;
            }
        }
        Served::Reply(policy.answer_to(&id))
    }
}

/// The id of the request object `message`; `None` for anything else.
fn request_id(message: &[u8]) -> Option<&RawValue> {
    #[derive(serde::Deserialize)]
    struct WithId<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        method: Option<&'a RawValue>,
    }
    if !crate::wire::is_object(message) {
        return None;
    }
    match serde_json::from_slice::<WithId<'_>>(message).ok()? {
        WithId {
            id: Some(id),
            method: Some(_),
        } => Some(id),
        _ => None,
    }
}
