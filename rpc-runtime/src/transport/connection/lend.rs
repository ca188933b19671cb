//! A request's place among those in flight, lent while its handler waits
//! on the peer: a server calling back into its client must not stop the
//! connection from reading the client's answer (see
//! [`in_flight`](crate::transport::sync::in_flight)).

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::writer::Outbound;
use crate::transport::sync::in_flight::{Lender, Permit};

tokio::task_local! {
    /// The permit of the request the current task serves, and its
    /// connection (named by its outbox).
    static LENDER: Arc<Lent>;
}

pub(super) struct Lent {
    lender: Lender,
    outbox: mpsc::Sender<Outbound>,
}

/// Runs `call`, a request of the connection whose outbox is `outbox`
/// holding `permit`, able to lend the permit while it waits on the peer.
pub(super) fn lending<F: Future>(
    permit: &Permit,
    outbox: &mpsc::Sender<Outbound>,
    call: F,
) -> impl Future<Output = F::Output> + use<F> {
    let lent = Lent {
        lender: permit.lender(),
        outbox: outbox.clone(),
    };
    LENDER.scope(Arc::new(lent), call)
}

/// Awaits `waiting` (a call's answer from the peer of the connection whose
/// outbox is `outbox`), lending the current request's permit while it
/// waits, when the current task serves a request of that connection.
pub(super) async fn lent_while<T>(
    outbox: &mpsc::Sender<Outbound>,
    waiting: impl Future<Output = T>,
) -> T {
    let mut waiting = pin!(waiting);
    let mut reclaim: Option<Reclaim> = None;
    poll_fn(|cx| {
        let polled = waiting.as_mut().poll(cx);
        // Lent only once the answer is not at hand; tried again on each
        // poll, as a request's first poll runs before it has its task.
        if polled.is_pending() && reclaim.is_none() {
            reclaim = LENDER
                .try_with(Arc::clone)
                .ok()
                .filter(|lent| lent.outbox.same_channel(outbox))
                .map(|lent| {
                    lent.lender.lend();
                    Reclaim(lent)
                });
        }
        polled
    })
    .await
}

/// Takes the lent permit back, however the wait ends.
struct Reclaim(Arc<Lent>);

impl Drop for Reclaim {
    fn drop(&mut self) {
        self.0.lender.reclaim();
    }
}
