//! The requests a connection is running, counted against its limit.
//!
//! A semaphore with one taker: only the connection's reader takes permits,
//! while requests give theirs back from wherever they finish (the reader
//! itself, the writer, a task on another worker). With one taker, taking a
//! permit needs no compare-and-swap loop, and giving one back is an atomic
//! add and a load: no lock and no queue of waiters, which tokio's
//! `Semaphore` takes on every release, once per request.
//!
//! A request whose handler waits on the peer (a server's call back into
//! its client) lends its permit back for the wait ([`Lender`]): the peer's
//! answer may be queued behind more requests, which the reader must then
//! read on to reach it. It takes the place back when the answer comes,
//! even past the limit: by as many as are waiting on the peer at once.

use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
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
    /// Below zero while requests that lent theirs have taken them back
    /// and more had been taken meanwhile.
    free: AtomicIsize,
    /// The permits lent by requests waiting on the peer (counted free).
    lent: AtomicUsize,
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

    /// Whether no request holds a permit (or lent one) and nothing streams.
    pub(crate) fn is_idle(&self) -> bool {
        self.permits.free.load(Ordering::Acquire) == self.limit as isize
            && self.permits.lent.load(Ordering::Acquire) == 0
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
                free: AtomicIsize::new(limit as isize),
                lent: AtomicUsize::new(0),
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

    /// Whether no request holds a permit, nor waits on the peer.
    pub(crate) fn is_idle(&self) -> bool {
        self.free() == self.limit as isize && self.permits.lent.load(Ordering::Acquire) == 0
    }

    /// A permit if one is free now.
    pub(crate) fn try_take(&self) -> Option<Permit> {
        // Nobody else takes but a request taking back the permit it lent,
        // which may take the count below zero: by design (see the module).
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

    /// Resolves once every permit has been given back or lent (a request
    /// waiting on a peer that is no longer read cannot be answered).
    pub(crate) async fn all_back(&self) {
        self.until(|free| free == self.limit as isize).await;
    }

    fn free(&self) -> isize {
        self.permits.free.load(Ordering::Acquire)
    }

    async fn until(&self, ready: impl Fn(isize) -> bool) {
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

impl Permits {
    /// One more permit free: the taker, if it waits, is woken.
    fn give(&self) {
        self.free.fetch_add(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst)
            && let Some(taker) = lock(&self.taker).take()
        {
            taker.wake();
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.give();
    }
}

impl Permit {
    /// What lends this permit while its request waits on the peer.
    pub(crate) fn lender(&self) -> Lender {
        Lender {
            permits: self.0.clone(),
            waits: AtomicUsize::new(0),
        }
    }
}

/// Lends a request's permit back while its handler waits on the peer, and
/// takes it back when the last wait ends (see the module).
pub(crate) struct Lender {
    permits: Arc<Permits>,
    /// How many calls to the peer the request waits on now.
    waits: AtomicUsize,
}

impl Lender {
    /// A wait on the peer begins: the first lends the permit.
    pub(crate) fn lend(&self) {
        if self.waits.fetch_add(1, Ordering::AcqRel) == 0 {
            self.permits.lent.fetch_add(1, Ordering::SeqCst);
            self.permits.give();
        }
    }

    /// A wait ends: the last takes the permit back, past the limit if need be.
    pub(crate) fn reclaim(&self) {
        if self.waits.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.permits.free.fetch_sub(1, Ordering::SeqCst);
            self.permits.lent.fetch_sub(1, Ordering::SeqCst);
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

    #[test]
    fn a_lent_permit_is_free_to_take_and_comes_back_over_the_limit() {
        let in_flight = InFlight::new(1);
        let waiting = in_flight.try_take().expect("the permit");
        let lender = waiting.lender();
        lender.lend();
        lender.lend();
        assert!(
            !in_flight.is_idle(),
            "a request waiting on the peer is busy"
        );
        let other = in_flight.try_take().expect("the lent place, taken");
        lender.reclaim();
        assert!(in_flight.try_take().is_none(), "one wait remains");
        lender.reclaim();
        // Both run now, one past the limit; both give back one.
        assert!(in_flight.try_take().is_none());
        drop(other);
        assert!(in_flight.try_take().is_none(), "still at the limit");
        drop(waiting);
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
