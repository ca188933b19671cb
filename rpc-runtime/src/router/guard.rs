//! Guarding a handler: a panic or a run past the request timeout becomes
//! `-32603` for its own request.

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

/// When a handler is given up on.
#[cfg(feature = "rt")]
pub(super) struct Deadline {
    sleep: Pin<Box<tokio::time::Sleep>>,
    timeout: std::time::Duration,
}

#[cfg(feature = "rt")]
impl Deadline {
    /// `timeout` after `since`.
    pub(super) fn new(since: tokio::time::Instant, timeout: std::time::Duration) -> Self {
        Deadline {
            sleep: Box::pin(tokio::time::sleep_until(since + timeout)),
            timeout,
        }
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

    /// `Ready` with the timeout's reply once the deadline has passed.
    fn poll_deadline(&mut self, _cx: &mut Context<'_>) -> Poll<Option<String>> {
        #[cfg(feature = "rt")]
        if let Some(deadline) = &mut self.deadline
            && deadline.sleep.as_mut().poll(_cx).is_ready()
        {
            return Poll::Ready(timed_out(self.id, deadline.timeout));
        }
        Poll::Pending
    }
}

impl<F: Future<Output = Option<String>> + Unpin> Future for Guarded<'_, F> {
    type Output = Option<String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The future is dropped after a panic, never polled again, so no
        // broken invariant inside it can be observed.
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut self.future).poll(cx))) {
            Ok(Poll::Pending) => self.poll_deadline(cx),
            Ok(ready) => ready,
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
