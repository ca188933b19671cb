//! One request's cancellation, shared by what fires it (the peer's cancel,
//! its deadline) and the handler that may watch it: [`Context::cancelled`].

use std::future::{Future, poll_fn};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use tokio_util::sync::CancellationToken;

use crate::Context;

tokio::task_local! {
    /// The cancellation of the request the current task serves; set
    /// around a request that runs as a task of its connection.
    pub(crate) static WATCH: Arc<Watch>;
}

/// One request's cancellation, shared by what fires it (its connection,
/// on the peer's cancel; its deadline) and its handler (which may
/// watch it).
#[derive(Default)]
pub(crate) struct Watch {
    token: CancellationToken,
    /// Set once the handler has asked for [`Context::cancelled`]: it
    /// then gets a grace period to clean up.
    watching: AtomicBool,
    /// Set when the request was cancelled because an exclusive message
    /// superseded it, not by its peer.
    #[cfg(feature = "duplex")]
    superseded: AtomicBool,
}

impl Watch {
    pub(crate) fn cancel(&self) {
        self.token.cancel();
    }

    /// Cancels the request because a change superseded it.
    #[cfg(feature = "duplex")]
    pub(crate) fn supersede(&self) {
        self.superseded.store(true, Ordering::Release);
        self.token.cancel();
    }

    #[cfg(feature = "duplex")]
    pub(crate) fn is_superseded(&self) -> bool {
        self.superseded.load(Ordering::Acquire)
    }

    #[cfg(feature = "duplex")]
    pub(crate) async fn cancelled(&self) {
        self.token.cancelled().await;
    }

    pub(crate) fn is_watched(&self) -> bool {
        self.watching.load(Ordering::Acquire)
    }

    /// Ties this watch (a request's deadline) to `outer` (the peer's
    /// cancel of the same request): fired once that one is, and watched
    /// there once watched here. Called around each poll of the handler,
    /// as a request moves into `outer`'s scope only after its first polls.
    pub(crate) fn follow(&self, outer: &Watch) {
        if outer.token.is_cancelled() {
            self.cancel();
        }
        if self.is_watched() {
            outer.watching.store(true, Ordering::Release);
        }
    }
}

impl Context {
    /// Resolves when the request being served is given up on: cancelled
    /// by its client, with the router's
    /// [`cancel_notification`](crate::RouterBuilder::cancel_notification),
    /// or past the router's
    /// [`request_timeout`](crate::RouterBuilder::request_timeout).
    /// A handler that awaits it has a grace period to clean up before
    /// it is dropped (the cancel policy's
    /// [`grace_period`](crate::CancelPolicy::grace_period), or
    /// [`DEFAULT_GRACE`](crate::CancelPolicy::DEFAULT_GRACE) without a
    /// policy); its result is discarded either way, and the request
    /// answered as the policy says, or `-32603` `"Request timed out"`.
    ///
    /// A peer can cancel only a request that waits, on a two-way
    /// connection (WebSocket, TCP, stdio); the timeout reaches every
    /// request that waits, on any transport, batch entries included.
    /// A request that neither can reach never sees this resolve: it is
    /// dropped when its client goes away. It is the handler's own
    /// future that learns of its cancellation: a task the handler
    /// spawns does not, and should be handed the news.
    ///
    /// ```
    /// use typed_rpc::{Context, RpcResult, TransportKind};
    ///
    /// async fn long_job(cx: &Context) -> RpcResult<u64> {
    ///     tokio::select! {
    ///         () = cx.cancelled() => {
    ///             // Cleanup goes here, within the grace period.
    ///             Err(typed_rpc::ErrorObject::new(-32800, "Request cancelled"))
    ///         }
    ///         () = tokio::time::sleep(std::time::Duration::from_millis(10)) => Ok(42),
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// // Served in-process, nothing can cancel it: the job finishes.
    /// assert_eq!(long_job(&Context::new(TransportKind::InProcess)).await.unwrap(), 42);
    /// # });
    /// ```
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static + use<> {
        async {
            let mut woken = false;
            let watch = poll_fn(|cx| match WATCH.try_with(Arc::clone) {
                Ok(watch) => Poll::Ready(watch),
                Err(_) => {
                    // A request is polled once in place before it
                    // becomes a task, where its cancellation is set:
                    // one wake-up makes sure it is looked for again
                    // even under a combinator that polls only what
                    // was woken.
                    if !std::mem::replace(&mut woken, true) {
                        cx.waker().wake_by_ref();
                    }
                    Poll::Pending
                }
            })
            .await;
            watch.watching.store(true, Ordering::Release);
            watch.token.cancelled().await;
        }
    }
}
