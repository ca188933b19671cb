//! The request timeout (`rt` feature): the builder's setting, and the
//! deadline that gives up on a handler running past it, after a grace
//! period for a handler that watches its cancellation.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Context;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use super::{Router, RouterBuilder};
use crate::cancel::{WATCH, Watch};
use crate::wire::{self, Id};
use crate::{CancelPolicy, ErrorObject};

/// How long a handler may run, as the builder set it (default: no limit).
#[derive(Clone, Copy)]
pub(super) struct Timeout(Option<Duration>);

impl Timeout {
    pub(super) const NONE: Timeout = Timeout(None);

    /// When a request begins, if there is a timeout to measure from it.
    pub(super) fn begin(&self) -> Option<Began> {
        self.0.map(|_| Began(Instant::now()))
    }
}

impl fmt::Debug for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// When a request began.
pub(super) struct Began(Instant);

/// When a handler is given up on: at its deadline, or, if it watches its
/// [cancellation](crate::Context::cancelled), a grace period after it.
pub(super) struct Deadline {
    sleep: Pin<Box<Sleep>>,
    timeout: Duration,
    grace: Duration,
    /// What the handler watches.
    watch: Arc<Watch>,
    /// Set once the deadline has passed: the grace period runs.
    passed: bool,
}

impl Router {
    /// The deadline of a handler that began at `began` and now waits.
    pub(super) fn deadline(&self, began: Option<Began>) -> Option<Deadline> {
        let timeout = self.inner.settings.request_timeout.0?;
        let grace = self
            .cancel_policy()
            .map_or(CancelPolicy::DEFAULT_GRACE, CancelPolicy::grace);
        Some(Deadline {
            sleep: Box::pin(tokio::time::sleep_until(began?.0 + timeout)),
            timeout,
            grace,
            watch: Arc::default(),
            passed: false,
        })
    }
}

impl Deadline {
    /// Runs `poll` where [`Context::cancelled`](crate::Context::cancelled)
    /// finds this deadline, which stands for the peer's cancel too, if the
    /// request can get one.
    pub(super) fn scope<R>(&self, poll: impl FnOnce() -> R) -> R {
        let follow = || WATCH.try_with(|outer| self.watch.follow(outer));
        let _ = follow();
        let polled = WATCH.sync_scope(self.watch.clone(), poll);
        let _ = follow();
        polled
    }

    /// `true` once the handler is to be dropped; at the deadline a handler
    /// that watches is told and given its grace period first.
    pub(super) fn poll_passed(&mut self, cx: &mut Context<'_>) -> bool {
        if self.sleep.as_mut().poll(cx).is_pending() {
            return false;
        }
        if !self.passed && !self.grace.is_zero() && self.watch.is_watched() {
            self.passed = true;
            self.watch.cancel();
            let end = Instant::now() + self.grace;
            self.sleep.as_mut().reset(end);
            return self.sleep.as_mut().poll(cx).is_ready();
        }
        true
    }

    /// Whether the deadline has passed and the grace period runs.
    pub(super) fn passed(&self) -> bool {
        self.passed
    }

    /// The timeout's reply to the request `id`.
    #[cold]
    pub(super) fn timed_out(&self, id: Option<Id<'_>>) -> Option<String> {
        let timeout = self.timeout;
        tracing::warn!(id = ?id, ?timeout, "a handler ran past the request timeout");
        let reason = format!(
            "the request did not finish within {} ms",
            timeout.as_millis()
        );
        let error = ErrorObject::new(crate::code::INTERNAL_ERROR, "Request timed out")
            .with_data(&serde_json::json!({ "reason": reason }));
        Some(wire::failure(Some(id?), &error))
    }
}

impl RouterBuilder {
    /// Gives each handler at most `timeout` to finish (default: no limit).
    /// A request whose handler runs longer is answered `-32603` `"Request
    /// timed out"` and its handler is dropped; the other requests, and the
    /// other entries of its batch, are not disturbed. A handler that
    /// awaits [`Context::cancelled`](crate::Context::cancelled) sees it
    /// resolve at the timeout, and has the cancel policy's grace period
    /// ([`CancelPolicy::DEFAULT_GRACE`] without one) to clean up before it
    /// is dropped; the answer is the timeout's either way.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.settings.request_timeout = Timeout(Some(timeout));
        self
    }
}
