//! The header timeout of an HTTP connection ([`Limits::header_timeout`]):
//! one timer for the connection's life instead of one per request.
//!
//! hyper's own `header_read_timeout` makes a boxed timer each time a
//! kept-alive connection starts waiting for the next request's headers,
//! registers it with tokio's timer wheel, and removes it when the headers
//! come: work on every request of a kept-alive connection.
//! Here a request only sets two flags; the one timer looks at them at every
//! quarter of the timeout ([`rare_events::quiet`]), as the idle timer of a
//! WebSocket connection does.
//!
//! [`Limits::header_timeout`]: crate::transport::Limits::header_timeout

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::transport::sync::rare_events;

/// Whether a connection is waiting for a request's headers, and since when,
/// to the nearest quarter of the timeout.
#[derive(Default)]
pub(super) struct HeaderWait {
    /// How many requests are being served (their bodies have a timeout of
    /// their own): while any is, no headers are awaited. A count, not a
    /// flag: an HTTP/2 connection serves several streams at once.
    serving: AtomicUsize,
    /// A response was made since the timer last looked: the wait for the
    /// next request's headers began then. (Atomics only because hyper wants
    /// a service it can send between threads; one task writes and reads
    /// them.)
    answered: AtomicBool,
}

impl HeaderWait {
    /// A connection that starts waiting now (it was just accepted).
    pub(super) fn new() -> Self {
        HeaderWait::default()
    }

    /// A request's headers are in: it is being served.
    pub(super) fn serving(&self) {
        self.serving.fetch_add(1, Ordering::Relaxed);
    }

    /// The request's response is ready: hyper writes it and then waits for
    /// the next request's headers, as its own timer would count.
    pub(super) fn waiting(&self) {
        self.answered.store(true, Ordering::Relaxed);
        self.serving.fetch_sub(1, Ordering::Relaxed);
    }

    /// Ready once the connection has waited `timeout` for headers (up to a
    /// quarter more).
    pub(super) fn expired(
        &self,
        timeout: Duration,
    ) -> rare_events::Quiet<impl FnMut() -> bool + '_> {
        rare_events::quiet(timeout, || {
            let answered = self.answered.swap(false, Ordering::Relaxed);
            answered || self.serving.load(Ordering::Relaxed) > 0
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::HeaderWait;

    const TIMEOUT: Duration = Duration::from_millis(40);

    #[tokio::test]
    async fn a_connection_that_sends_nothing_expires() {
        let wait = HeaderWait::new();
        let started = tokio::time::Instant::now();
        wait.expired(TIMEOUT).await;
        assert!(started.elapsed() >= TIMEOUT);
    }

    #[tokio::test]
    async fn a_request_being_served_does_not_expire() {
        let wait = HeaderWait::new();
        wait.serving();
        let expired = tokio::time::timeout(TIMEOUT * 3, wait.expired(TIMEOUT)).await;
        assert!(expired.is_err(), "expired while serving");
    }

    #[tokio::test]
    async fn a_stream_still_served_keeps_the_connection_when_another_is_answered() {
        let wait = HeaderWait::new();
        wait.serving();
        wait.serving();
        wait.waiting();
        let expired = tokio::time::timeout(TIMEOUT * 3, wait.expired(TIMEOUT)).await;
        assert!(expired.is_err(), "expired while a stream was served");
    }

    #[tokio::test]
    async fn the_wait_counts_from_the_last_response() {
        let wait = HeaderWait::new();
        let expiry = wait.expired(TIMEOUT);
        let mut expiry = std::pin::pin!(expiry);
        // Requests keep coming for longer than the timeout.
        for _ in 0..4 {
            tokio::select! {
                () = expiry.as_mut() => panic!("expired while requests kept coming"),
                () = tokio::time::sleep(TIMEOUT / 2) => {}
            }
            wait.serving();
            wait.waiting();
        }
        let last = tokio::time::Instant::now();
        expiry.await;
        assert!(last.elapsed() >= TIMEOUT);
    }
}
