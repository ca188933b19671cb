//! A server's life: the tasks it runs and its graceful shutdown.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::transport::sync::lock;

/// The stages of a server's life that its tasks watch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lifecycle {
    /// Cancelled when a graceful shutdown begins: stop accepting connections
    /// and reading new requests; finish what is in flight.
    pub(crate) stopping: CancellationToken,
    /// The tasks still running, to abort when the shutdown deadline passes.
    /// Aborted through their handles rather than each watching a token: a
    /// task then pays nothing at its wakeups (a `Rare` polled at each of
    /// them read its flag, a cache line per connection, for every request).
    running: Arc<Mutex<Running>>,
    /// Every task of the server: the listener and each connection.
    pub(crate) tasks: TaskTracker,
    /// How many subscriptions its connections' peers hold, all together.
    #[cfg(feature = "duplex")]
    pub(crate) subscriptions: Arc<std::sync::atomic::AtomicUsize>,
}

#[derive(Debug, Default)]
struct Running {
    handles: HashMap<u64, AbortHandle>,
    // Without a transport (the internal `rt` feature alone), nothing runs.
    #[cfg(any(feature = "http", feature = "duplex"))]
    next_key: u64,
    /// The deadline has passed: a task spawned now is dropped at once.
    aborted: bool,
}

impl Lifecycle {
    /// Runs `task` until it ends or the server aborts.
    #[cfg(any(feature = "http", feature = "duplex"))]
    pub(crate) fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        // Held until the handle is in: a task that ends at once (on another
        // worker) waits for it before it takes it out.
        let mut running = lock(&self.running);
        if running.aborted {
            return;
        }
        let key = running.next_key;
        running.next_key += 1;
        let all = self.running.clone();
        let handle = self.tasks.spawn(async move {
            task.await;
            lock(&all).handles.remove(&key);
        });
        running.handles.insert(key, handle.abort_handle());
    }

    /// Drops every task at its next chance, and any spawned later.
    fn abort(&self) {
        let handles = {
            let mut running = lock(&self.running);
            running.aborted = true;
            std::mem::take(&mut running.handles)
        };
        for handle in handles.into_values() {
            handle.abort();
        }
    }

    /// Stops gracefully: in-flight work gets `deadline` to finish, then is
    /// dropped. Returns whether everything finished in time.
    pub(crate) async fn shut_down(&self, deadline: Duration) -> bool {
        self.begin_shutdown();
        self.finish_by(Instant::now() + deadline).await
    }

    /// The first half of a graceful shutdown, which does not wait: stop
    /// accepting connections and reading new requests. Apart from
    /// [`finish_by`](Self::finish_by) so that several servers stopped
    /// together all stop accepting before any of them is waited for.
    pub(crate) fn begin_shutdown(&self) {
        self.stopping.cancel();
        self.tasks.close();
    }

    /// The second half: waits for the work in flight until `deadline`, then
    /// drops what is left. Returns whether everything finished in time.
    pub(crate) async fn finish_by(&self, deadline: Instant) -> bool {
        let in_time = tokio::time::timeout_at(deadline, self.tasks.wait())
            .await
            .is_ok();
        if !in_time {
            self.abort();
            self.tasks.wait().await;
        }
        in_time
    }
}
