//! Guarding a handler: a panic or a run past the request timeout becomes
//! `-32603` for its own request.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::deadline::Deadline;
use crate::ErrorObject;
use crate::wire::{self, Id};

/// A handler's future that turns a panic, or a handler that runs past the
/// router's request timeout, into `-32603` for its own request.
pub(super) struct Guarded<'a, F> {
    future: F,
    id: Option<Id<'a>>,
    deadline: Option<Deadline>,
}

impl<'a, F> Guarded<'a, F> {
    /// Guards `future`, the handler of request `id`, giving up on it when
    /// `deadline` (if any) passes.
    pub(super) fn new(future: F, id: Option<Id<'a>>, deadline: Option<Deadline>) -> Self {
        Guarded {
            future,
            id,
            deadline,
        }
    }

    /// The timeout's reply if the deadline has passed: the handler,
    /// finishing its cleanup, has its own result discarded.
    fn past_deadline(&self) -> Option<Option<String>> {
        let deadline = self
            .deadline
            .as_ref()
            .filter(|deadline| deadline.passed())?;
        Some(deadline.timed_out(self.id))
    }

    /// `Ready` with the timeout's reply once the handler is given up on.
    fn poll_deadline(&mut self, cx: &mut Context<'_>) -> Poll<Option<String>> {
        if let Some(deadline) = &mut self.deadline
            && deadline.poll_passed(cx)
        {
            return Poll::Ready(deadline.timed_out(self.id));
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
        let polled = match &this.deadline {
            Some(deadline) => deadline.scope(poll),
            None => poll(),
        };
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
