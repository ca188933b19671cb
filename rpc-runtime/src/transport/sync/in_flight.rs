//! The requests a connection is running, counted against its limit.
//!
//! A semaphore with one taker: only the connection's reader takes permits,
//! while requests give theirs back from wherever they finish (the reader
//! itself, the writer, a task on another worker). With one taker, taking a
//! permit needs no compare-and-swap loop, and giving one back is an atomic
//! add and a load: no lock and no queue of waiters, which tokio's
//! `Semaphore` takes on every release, once per request.

use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

use super::lock;

/// A connection's permits for requests in flight. Not `Clone`: whoever holds
/// it is the one taker.
pub(crate) struct InFlight {
    permits: Arc<Permits>,
    limit: usize,
}

struct Permits {
    free: AtomicUsize,
    /// Set while the taker waits for a permit to come back.
    waiting: AtomicBool,
    taker: Mutex<Option<Waker>>,
}

/// One request's permit, given back when dropped.
pub(crate) struct Permit(Arc<Permits>);

/// A look at a connection's permits from outside it: whether it has
/// anything in flight, for the admission that may close it when it has not.
pub(crate) struct Probe {
    permits: Arc<Permits>,
    limit: usize,
    /// Other work of the connection that outlives its requests (the
    /// subscriptions it streams), counted.
    streams: Option<Arc<AtomicUsize>>,
}

impl Probe {
    /// Also counts the connection busy while `streams` is above zero.
    pub(crate) fn with_streams(mut self, streams: Arc<AtomicUsize>) -> Self {
        self.streams = Some(streams);
        self
    }

    /// Whether no request holds a permit and nothing streams.
    pub(crate) fn is_idle(&self) -> bool {
        self.permits.free.load(Ordering::Acquire) == self.limit
            && self
                .streams
                .as_ref()
                .is_none_or(|streams| streams.load(Ordering::Acquire) == 0)
    }
}

impl InFlight {
    pub(crate) fn new(limit: usize) -> Self {
        InFlight {
            permits: Arc::new(Permits {
                free: AtomicUsize::new(limit),
                waiting: AtomicBool::new(false),
                taker: Mutex::new(None),
            }),
            limit,
        }
    }

    /// A probe of these permits (see [`Probe`]).
    pub(crate) fn probe(&self) -> Probe {
        Probe {
            permits: self.permits.clone(),
            limit: self.limit,
            streams: None,
        }
    }

    /// Whether a permit is free now.
    pub(crate) fn has_free(&self) -> bool {
        self.free() > 0
    }

    /// Whether no request holds a permit.
    pub(crate) fn is_idle(&self) -> bool {
        self.free() == self.limit
    }

    /// A permit if one is free now.
    pub(crate) fn try_take(&self) -> Option<Permit> {
        // Nobody else takes: a free permit seen here is still free below.
        if !self.has_free() {
            return None;
        }
        self.permits.free.fetch_sub(1, Ordering::AcqRel);
        Some(Permit(self.permits.clone()))
    }

    /// A permit, once one is free.
    pub(crate) async fn take(&self) -> Permit {
        self.until(|free| free > 0).await;
        self.try_take()
            .expect("a permit is free, and only this taker takes")
    }

    /// Resolves once every permit has been given back.
    pub(crate) async fn all_back(&self) {
        self.until(|free| free == self.limit).await;
    }

    fn free(&self) -> usize {
        self.permits.free.load(Ordering::Acquire)
    }

    async fn until(&self, ready: impl Fn(usize) -> bool) {
        poll_fn(|cx| {
            if ready(self.free()) {
                self.permits.waiting.store(false, Ordering::SeqCst);
                return Poll::Ready(());
            }
            *lock(&self.permits.taker) = Some(cx.waker().clone());
            // Set, then checked again: a permit given back in between either
            // sees `waiting` or is seen here.
            self.permits.waiting.store(true, Ordering::SeqCst);
            if ready(self.permits.free.load(Ordering::SeqCst)) {
                self.permits.waiting.store(false, Ordering::SeqCst);
                return Poll::Ready(());
            }
            Poll::Pending
        })
        .await
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.free.fetch_add(1, Ordering::SeqCst);
        if self.0.waiting.load(Ordering::SeqCst)
            && let Some(taker) = lock(&self.0.taker).take()
        {
            taker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::InFlight;

    #[test]
    fn permits_run_out_and_come_back() {
        let in_flight = InFlight::new(2);
        let first = in_flight.try_take().expect("a first permit");
        let second = in_flight.try_take().expect("a second permit");
        assert!(in_flight.try_take().is_none());
        assert!(!in_flight.has_free());
        drop(first);
        assert!(in_flight.has_free() && !in_flight.is_idle());
        drop(second);
        assert!(in_flight.is_idle());
    }

    #[tokio::test]
    async fn the_taker_wakes_when_a_permit_comes_back_from_another_thread() {
        let in_flight = InFlight::new(1);
        for _ in 0..200 {
            let permit = in_flight.try_take().expect("the permit");
            let giver = std::thread::spawn(move || {
                std::thread::yield_now();
                drop(permit);
            });
            let taken = tokio::time::timeout(Duration::from_secs(5), in_flight.take()).await;
            let permit = taken.expect("woken when the permit came back");
            giver.join().unwrap();
            drop(permit);
            tokio::time::timeout(Duration::from_secs(5), in_flight.all_back())
                .await
                .expect("all back");
        }
    }
}
