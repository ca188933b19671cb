//! Running the entries of a batch side by side and joining their replies.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use super::guard::Guarded;
use crate::service::HandlerSlot;

/// One entry of a batch: still running (in a slot of its own), or its
/// reply (if any) at hand.
pub(super) enum Outcome<'a> {
    Running(Guarded<'a, Pin<Box<HandlerSlot<'a>>>>),
    Done(Option<String>),
}

/// Runs every entry concurrently on the current task and joins the replies
/// into a batch response; `None` when no entry is answered.
pub(super) async fn join_batch(mut outcomes: Vec<Outcome<'_>>) -> Option<String> {
    poll_fn(|cx| {
        let mut pending = false;
        for outcome in outcomes.iter_mut() {
            if let Outcome::Running(future) = outcome {
                match Pin::new(future).poll(cx) {
                    Poll::Ready(reply) => *outcome = Outcome::Done(reply),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    let mut replies = outcomes.into_iter().filter_map(|outcome| match outcome {
        Outcome::Done(reply) => reply,
        Outcome::Running(_) => None,
    });
    let first = replies.next()?;
    let mut batch = String::with_capacity(first.len() * 2 + 2);
    batch.push('[');
    batch.push_str(&first);
    for reply in replies {
        batch.push(',');
        batch.push_str(&reply);
    }
    batch.push(']');
    Some(batch)
}
