//! Cancelling the peer's requests in flight: by the router's cancel policy, or superseded by a change.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Weak};

use serde_json::value::RawValue;

use super::reader::Served;
use crate::CancelPolicy;
use crate::Router;
use crate::cancel::{RequestKey, WATCH, Watch};
use crate::wire::Notification;

/// The peer's requests that run as tasks of the connection, by id for its
/// cancel notifications to find, and by key for the exclusive messages that
/// supersede them. Owned by the read loop: no lock.
pub(super) struct Cancels {
    /// How the peer cancels, if it can; without one, requests are only
    /// superseded, and answered with the LSP preset's error.
    policy: Option<Arc<CancelPolicy>>,
    /// Weak: a request that has finished holds no entry alive, and its
    /// entry is swept out as more come.
    running: HashMap<RequestKey, Weak<Watch>>,
    /// The requests in flight that declare a key, by key.
    keyed: HashMap<Box<str>, Vec<Weak<Watch>>>,
    /// The size at which finished entries are next swept out; at least
    /// twice the live ones, so that sweeping costs each request O(1).
    sweep_at: usize,
}

/// What a request needs to be cancelled: its watch and its id.
pub(super) struct Cancellable {
    watch: Arc<Watch>,
    id: Box<RawValue>,
    policy: Option<Arc<CancelPolicy>>,
}

impl Cancels {
    /// The connection's registry, if its router has a cancel policy or
    /// declares turns (which may supersede requests).
    pub(super) fn of(router: &Router, max_in_flight: usize) -> Option<Self> {
        let policy = router.shared_cancel_policy().cloned();
        if policy.is_none() && !router.declares_turns() {
            return None;
        }
        Some(Cancels {
            policy,
            running: HashMap::new(),
            keyed: HashMap::new(),
            sweep_at: max_in_flight.saturating_mul(2).max(16),
        })
    }

    /// Acts on `notification` if it is the policy's cancel: `true` when it
    /// was, and must go no further.
    pub(super) fn cancel(&mut self, notification: &Notification) -> bool {
        let Some(policy) = &self.policy else {
            return false;
        };
        let Some(id) = policy.cancelled_by(notification) else {
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

    /// Cancels the requests in flight with `key`, as an exclusive message
    /// with that key supersedes them.
    pub(super) fn supersede(&mut self, key: &str) {
        for watch in self.keyed.remove(key).into_iter().flatten() {
            if let Some(watch) = watch.upgrade() {
                tracing::debug!("a change superseded a request in flight");
                watch.supersede();
            }
        }
    }

    /// Registers the single request `request`, about to run as a task,
    /// with its turn's `key` if it has one; `None` for a batch or a
    /// notification, which cannot be cancelled.
    pub(super) fn register(
        &mut self,
        request: &[u8],
        key: Option<Box<str>>,
    ) -> Option<Cancellable> {
        let id = request_id(request)?;
        let request_key = RequestKey::of(id)?;
        if self.running.len() >= self.sweep_at {
            self.running.retain(|_, watch| watch.strong_count() > 0);
            self.keyed.retain(|_, watches| {
                watches.retain(|watch| watch.strong_count() > 0);
                !watches.is_empty()
            });
            self.sweep_at = self.sweep_at.max(self.running.len() * 2);
        }
        let watch = Arc::new(Watch::default());
        if self.policy.is_some() {
            self.running.insert(request_key, Arc::downgrade(&watch));
        }
        if let Some(key) = key {
            self.keyed
                .entry(key)
                .or_default()
                .push(Arc::downgrade(&watch));
        }
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
                let grace = policy
                    .as_ref()
                    .map_or(CancelPolicy::DEFAULT_GRACE, |policy| policy.grace());
                let _ = tokio::time::timeout(grace, &mut call).await;
            }
        }
        Served::Reply(match (watch.is_superseded(), &policy) {
            (true, Some(policy)) => answer(&id, policy.superseded()),
            (true, None) => answer(&id, &CancelPolicy::content_modified()),
            (false, Some(policy)) => policy.answer_to(&id),
            (false, None) => None,
        })
    }
}

/// The answer to request `id`: `error`.
fn answer(id: &RawValue, error: &crate::ErrorObject) -> Option<String> {
    Some(crate::wire::failure(Some(crate::wire::Id::new(id)?), error))
}

/// The id of the request object `message`; `None` for anything else.
pub(super) fn request_id(message: &[u8]) -> Option<&RawValue> {
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
