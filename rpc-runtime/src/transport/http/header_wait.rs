//! The header timeout of an HTTP connection ([`Limits::header_timeout`]):
//! one timer for the connection's life instead of one per request.
//!
//! hyper's own `header_read_timeout` makes a boxed timer each time a
//! kept-alive connection starts waiting for the next request's headers,
//! registers it with tokio's timer wheel, and removes it when the headers
//! come: about 1 500 instructions per request, measured under callgrind.
//! Here a request only records when it ended (one clock read); the one timer,
//! set for the first possible expiry, checks that time when it fires and
//! sets itself again for the real expiry, as the WebSocket idle timer does.
//!
//! [`Limits::header_timeout`]: crate::transport::Limits::header_timeout

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// `since` while a request is being served: no headers are awaited.
const SERVING: u64 = u64::MAX;

/// Since when a connection has been waiting for a request's headers.
pub(super) struct HeaderWait {
    origin: Instant,
    /// Nanoseconds after `origin` at which the wait began, or [`SERVING`].
    /// Atomic only because hyper wants a service it can send between
    /// threads; it is written and read by one task.
    since: AtomicU64,
}

impl HeaderWait {
    /// A connection that starts waiting now (it was just accepted).
    pub(super) fn new() -> Self {
        HeaderWait {
            origin: Instant::now(),
            since: AtomicU64::new(0),
        }
    }

    /// A request's headers are in: it is being served.
    pub(super) fn serving(&self) {
        self.since.store(SERVING, Ordering::Relaxed);
    }

    /// The request's response is ready: hyper writes it and then waits for
    /// the next request's headers, as its own timer would count.
    pub(super) fn waiting(&self) {
        let since = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(SERVING - 1);
        self.since.store(since, Ordering::Relaxed);
    }

    /// Resolves once the connection has waited `timeout` for headers.
    pub(super) async fn expired(&self, timeout: Duration) {
        let sleep = tokio::time::sleep(timeout);
        let mut sleep = std::pin::pin!(sleep);
        loop {
            sleep.as_mut().await;
            let now = Instant::now();
            let deadline = match self.since.load(Ordering::Relaxed) {
                // Serving a request (whose body has its own timeout): look
                // again a whole timeout later, the earliest it could expire.
                SERVING => now + timeout,
                since => self.origin + Duration::from_nanos(since) + timeout,
            };
            if now >= deadline {
                return;
            }
            sleep.as_mut().reset(deadline.into());
        }
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
