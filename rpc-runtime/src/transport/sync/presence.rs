//! A connection's presence as its listener's admission sees it: when it
//! was last active and whether work is in flight, reported by the
//! connection on its busy path for a relaxed load and a relaxed store, and
//! the tokens that ask it to close.

// Only a listener (HTTP, TCP) admits connections: with the connection
// engine alone, nothing but the reports of a connection is used.
#![cfg_attr(
    not(any(feature = "http", feature = "stream")),
    allow(dead_code, reason = "no listener without HTTP or TCP")
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

#[cfg(feature = "duplex")]
use super::in_flight::Probe;

/// A clock that only the listener reads: connections read its last reading,
/// never the system clock, on their busy path.
pub(crate) struct Clock {
    epoch: Instant,
    /// Milliseconds from `epoch` at the last reading.
    now: AtomicU64,
}

impl Clock {
    /// A clock that starts now.
    pub(crate) fn new() -> Self {
        Clock {
            epoch: Instant::now(),
            now: AtomicU64::new(0),
        }
    }

    /// Reads the system clock, and keeps the reading for the connections.
    pub(crate) fn read(&self) -> u64 {
        let now = millis(self.epoch.elapsed());
        self.now.store(now, Ordering::Relaxed);
        now
    }

    fn last(&self) -> u64 {
        self.now.load(Ordering::Relaxed)
    }
}

/// One connection as its listener's admission sees it, shared with the
/// connection, which reports to it.
pub(crate) struct Presence {
    clock: Arc<Clock>,
    /// The clock's reading at the connection's last message.
    last_active: AtomicU64,
    /// How many HTTP requests are being served (HTTP/2 serves several at once).
    serving: AtomicUsize,
    /// The requests a duplex connection runs (WebSocket, TCP).
    #[cfg(feature = "duplex")]
    in_flight: std::sync::OnceLock<Probe>,
    /// The connection's own idle timeout, in milliseconds: the sweep
    /// shrinks it under pressure.
    idle_timeout: AtomicU64,
    /// Cancelled to ask the connection to close gracefully; a child of the
    /// server's stopping.
    stop: CancellationToken,
    /// Cancelled to drop a closing connection's closing handshake.
    abandon: CancellationToken,
}

impl Presence {
    /// The presence of a connection admitted at `now` (a reading of
    /// `clock`), idle after `idle_timeout`, asked to close through `stop`.
    pub(crate) fn new(
        clock: Arc<Clock>,
        now: u64,
        idle_timeout: Duration,
        stop: CancellationToken,
    ) -> Self {
        Presence {
            clock,
            last_active: AtomicU64::new(now),
            serving: AtomicUsize::new(0),
            #[cfg(feature = "duplex")]
            in_flight: std::sync::OnceLock::new(),
            idle_timeout: AtomicU64::new(millis(idle_timeout)),
            stop,
            abandon: CancellationToken::new(),
        }
    }

    /// A message arrived: the listener's last clock reading, stored as this
    /// connection's (a relaxed load and a relaxed store).
    pub(crate) fn touch(&self) {
        self.last_active.store(self.clock.last(), Ordering::Relaxed);
    }

    /// An HTTP request's headers are in: it is being served.
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "HTTP's"))]
    pub(crate) fn serving(&self) {
        self.serving.fetch_add(1, Ordering::Relaxed);
    }

    /// The HTTP request's response is ready: idle from now.
    #[cfg_attr(not(feature = "http"), allow(dead_code, reason = "HTTP's"))]
    pub(crate) fn answered(&self) {
        self.touch();
        self.serving.fetch_sub(1, Ordering::Relaxed);
    }

    /// The connection runs its requests under `in_flight` (a duplex
    /// connection, once it starts reading).
    #[cfg(feature = "duplex")]
    pub(crate) fn watch(&self, in_flight: Probe) {
        let _ = self.in_flight.set(in_flight);
    }

    /// The connection now idles for `timeout` before it is closed (an HTTP
    /// connection upgraded to WebSocket).
    #[cfg_attr(not(feature = "ws"), allow(dead_code, reason = "WebSocket's"))]
    pub(crate) fn set_idle_timeout(&self, timeout: Duration) {
        self.idle_timeout.store(millis(timeout), Ordering::Relaxed);
    }

    /// Cancelled when the connection is to close gracefully: under pressure,
    /// or at the server's shutdown.
    pub(crate) fn stop(&self) -> &CancellationToken {
        &self.stop
    }

    /// Cancelled when a closing connection is to drop its closing handshake.
    pub(crate) fn abandoned(&self) -> &CancellationToken {
        &self.abandon
    }

    /// Whether nothing is in flight.
    pub(crate) fn is_idle(&self) -> bool {
        #[cfg(feature = "duplex")]
        if self.in_flight.get().is_some_and(|probe| !probe.is_idle()) {
            return false;
        }
        self.serving.load(Ordering::Relaxed) == 0
    }

    /// How long it has been idle at `now`, in milliseconds.
    pub(crate) fn idle_for(&self, now: u64) -> u64 {
        now.saturating_sub(self.last_active.load(Ordering::Relaxed))
    }

    /// Seen busy at `now`: idle time runs from here.
    pub(crate) fn seen_active(&self, now: u64) {
        self.last_active.store(now, Ordering::Relaxed);
    }

    /// Its own idle timeout, in milliseconds.
    pub(crate) fn idle_timeout_millis(&self) -> u64 {
        self.idle_timeout.load(Ordering::Relaxed)
    }
}

/// `duration` in whole milliseconds, saturating.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
