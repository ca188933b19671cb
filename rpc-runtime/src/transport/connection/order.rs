//! Keeping the peer's notifications in order with what follows them.

use std::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use super::{Setup, Shared, deliver};
use crate::Context;
use crate::wire::{self, Incoming};

/// Keeps the peer's notifications in order: they run one after another, and
/// whatever arrives after a notification (a request, a response to one of
/// our calls) waits until it has run. An LSP server sees `didChange` before
/// the `hover` that follows it; an MCP client sees every progress
/// notification before the result. Requests still run concurrently with one
/// another.
#[derive(Default)]
pub(super) struct Order {
    /// Runs the notifications; started at the first one, as most
    /// connections never get one (a task and a queue saved per connection).
    runner: Option<Runner>,
    /// How many notifications have been queued.
    received: u64,
}

/// The task that runs a connection's notifications, one after another.
pub(super) struct Runner {
    queue: mpsc::Sender<(u64, Bytes)>,
    /// How many have run.
    done: watch::Receiver<u64>,
    /// Dropping it aborts the task.
    task: AbortOnDropHandle<()>,
}

impl Order {
    /// The runner, started now if it has not been.
    fn runner(&mut self, setup: &Setup, context: &Arc<Context>, shared: &Shared) -> &mut Runner {
        self.runner.get_or_insert_with(|| {
            let (queue, mut queued) = mpsc::channel::<(u64, Bytes)>(setup.max_in_flight);
            let (done_tx, done) = watch::channel(0);
            let (router, context, outbox) =
                (setup.router.clone(), context.clone(), shared.outbox.clone());
            let task = AbortOnDropHandle::new(tokio::spawn(
                async move {
                    while let Some((number, message)) = queued.recv().await {
                        // An invalid notification is answered, as the protocol says.
                        if let Some(reply) = router.handle_with(&message, &context).await {
                            let _ = outbox.send(reply.into()).await;
                        }
                        done_tx.send_replace(number);
                    }
                }
                // The notifications' spans open in the connection's, as its
                // requests' do.
                .in_current_span(),
            ));
            Runner { queue, done, task }
        })
    }

    /// Lets the notifications queued so far run, and waits for them.
    pub(super) async fn finish(self) {
        if let Some(Runner { queue, task, .. }) = self.runner {
            drop(queue);
            let _ = task.await;
        }
    }

    /// Whether every notification received so far has run.
    pub(super) fn is_settled(&self) -> bool {
        self.runner
            .as_ref()
            .is_none_or(|runner| *runner.done.borrow() >= self.received)
    }

    /// Resolves once every notification received so far has run.
    pub(super) fn settled(&self) -> impl Future<Output = ()> + Send + use<> {
        let received = self.received;
        let done = match &self.runner {
            Some(runner) if !self.is_settled() => Some(runner.done.clone()),
            _ => None,
        };
        async move {
            // An error means the notification task has ended: nothing to wait for.
            if let Some(mut done) = done {
                let _ = done.wait_for(|done| *done >= received).await;
            }
        }
    }

    /// Hands `responses` (from `message`) to their calls: now, or once the
    /// notifications that came before them have run.
    pub(super) fn deliver(
        &self,
        shared: &Arc<Shared>,
        message: &Bytes,
        responses: Vec<(Option<u64>, &serde_json::value::RawValue)>,
    ) {
        if self.is_settled() {
            return deliver(shared, message, responses);
        }
        let (shared, message, settled) = (shared.clone(), message.clone(), self.settled());
        tokio::spawn(async move {
            settled.await;
            match wire::classify(&message) {
                Incoming::Responses(responses) | Incoming::Mixed { responses, .. } => {
                    deliver(&shared, &message, responses)
                }
                Incoming::Notification | Incoming::ForRouter => {}
            }
        });
    }

    /// Queues a notification; `false` if the connection is closing.
    pub(super) async fn queue(
        &mut self,
        message: Bytes,
        setup: &Setup,
        context: &Arc<Context>,
        shared: &Shared,
    ) -> bool {
        // An item of one of this end's subscriptions is for its reader.
        if shared.subscribed.route(&message).await {
            return true;
        }
        self.received += 1;
        let number = self.received;
        tokio::select! {
            sent = self.runner(setup, context, shared).queue.send((number, message)) => sent.is_ok(),
            () = shared.closing.cancelled() => false,
        }
    }
}
