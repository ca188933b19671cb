//! Guarding a handler: a panic or a run past the request timeout becomes
//! `-32603` for its own request; a handler that watches its cancellation
//! is told of the timeout and given a grace period first.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::ErrorObject;
use crate::wire::{self, Id};

/// A handler's future that turns a panic, or a handler that runs past the
/// router's request timeout, into `-32603` for its own request.
pub(super) struct Guarded<'a, F> {
    future: F,
    id: Option<Id<'a>>,
    #[cfg(feature = "rt")]
    deadline: Option<Deadline>,
}

/// When a handler is given up on: at its deadline, or, if it watches its
/// [cancellation](crate::Context::cancelled), a grace period after it.
#[cfg(feature = "rt")]
pub(super) struct Deadline {
    sleep: Pin<Box<tokio::time::Sleep>>,
    timeout: std::time::Duration,
    grace: std::time::Duration,
    /// What the handler watches.
    watch: std::sync::Arc<crate::cancel::Watch>,
    /// Set once the deadline has passed: the grace period runs.
    passed: bool,
}

#[cfg(feature = "rt")]
impl Deadline {
    /// `timeout` after `since`, then `grace` for a handler that watches.
    pub(super) fn new(
        since: tokio::time::Instant,
        timeout: std::time::Duration,
        grace: std::time::Duration,
    ) -> Self {
        Deadline {
            sleep: Box::pin(tokio::time::sleep_until(since + timeout)),
            timeout,
            grace,
            watch: std::sync::Arc::default(),
            passed: false,
        }
    }

    /// Runs `poll` where [`Context::cancelled`](crate::Context::cancelled)
    /// finds this deadline, which stands for the peer's cancel too, if the
    /// request can get one.
    fn scope<R>(&self, poll: impl FnOnce() -> R) -> R {
        use crate::cancel::WATCH;
        let follow = || WATCH.try_with(|outer| self.watch.follow(outer));
        let _ = follow();
        let polled = WATCH.sync_scope(self.watch.clone(), poll);
        let _ = follow();
        polled
    }

    /// `true` once the handler is to be dropped; at the deadline a handler
    /// that watches is told and given its grace period first.
    fn poll_passed(&mut self, cx: &mut Context<'_>) -> bool {
        if self.sleep.as_mut().poll(cx).is_pending() {
            return false;
        }
        if !self.passed && !self.grace.is_zero() && self.watch.is_watched() {
            self.passed = true;
            self.watch.cancel();
            let end = tokio::time::Instant::now() + self.grace;
            self.sleep.as_mut().reset(end);
            return self.sleep.as_mut().poll(cx).is_ready();
        }
        true
    }
}

impl<'a, F> Guarded<'a, F> {
    pub(super) fn new(future: F, id: Option<Id<'a>>) -> Self {
        Guarded {
            future,
            id,
            #[cfg(feature = "rt")]
            deadline: None,
        }
    }

    /// Gives up on the handler when `deadline` passes.
    #[cfg(feature = "rt")]
    pub(super) fn with_deadline(mut self, deadline: Option<Deadline>) -> Self {
        self.deadline = deadline;
        self
    }

    /// The timeout's reply if the deadline has passed: the handler,
    /// finishing its cleanup, has its own result discarded.
    fn past_deadline(&self) -> Option<Option<String>> {
        #[cfg(feature = "rt")]
        if let Some(deadline) = self.deadline.as_ref().filter(|deadline| deadline.passed) {
            return Some(timed_out(self.id, deadline.timeout));
        }
        None
    }

    /// `Ready` with the timeout's reply once the handler is given up on.
    fn poll_deadline(&mut self, _cx: &mut Context<'_>) -> Poll<Option<String>> {
        #[cfg(feature = "rt")]
        if let Some(deadline) = &mut self.deadline
            && deadline.poll_passed(_cx)
        {
            return Poll::Ready(timed_out(self.id, deadline.timeout));
        }
        Poll::Pending
    }
}

impl<F: Future<Output = Option<String>> + Unpin> Future for Guarded<'_, F> {
    type Output = Option<String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        // The future is dropped after a panic, never polled again, so no
        // broken invariant inside it can be observed.
        let mut poll = || catch_unwind(AssertUnwindSafe(|| Pin::new(&mut this.future).poll(cx)));
        #[cfg(feature = "rt")]
        let polled = match &mut this.deadline {
            Some(deadline) => deadline.scope(poll),
            None => poll(),
        };
        #[cfg(not(feature = "rt"))]
        let polled = poll();
        match polled {
            Ok(Poll::Pending) => self.poll_deadline(cx),
            Ok(Poll::Ready(reply)) => Poll::Ready(self.past_deadline().unwrap_or(reply)),
            Err(panic) => Poll::Ready(panicked(self.id, &*panic)),
        }
    }
}

#[cold]
pub(super) fn panicked(id: Option<Id<'_>>, panic: &(dyn std::any::Any + Send)) -> Option<String> {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    tracing::error!(id = ?id, panic = message, "a handler panicked");
    Some(wire::failure(Some(id?), &ErrorObject::internal_error()))
}

#[cfg(feature = "rt")]
#[cold]
fn timed_out(id: Option<Id<'_>>, timeout: std::time::Duration) -> Option<String> {
    tracing::warn!(id = ?id, ?timeout, "a handler ran past the request timeout");
    let reason = format!(
        "the request did not finish within {} ms",
        timeout.as_millis()
    );
    let error = ErrorObject::new(crate::code::INTERNAL_ERROR, "Request timed out")
        .with_data(&serde_json::json!({ "reason": reason }));
    Some(wire::failure(Some(id?), &error))
}
