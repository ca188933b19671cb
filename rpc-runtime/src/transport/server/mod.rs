//! Running servers: the listener loop, the connection limit and graceful shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::Router;
use crate::transport::Limits;
use crate::transport::sync::lock;

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "duplex")]
mod messages;

/// A router and the limits its transports enforce: the starting point of
/// every server.
///
/// ```no_run
/// # async fn demo(router: rpc_runtime::Router) -> std::io::Result<()> {
/// use rpc_runtime::transport::{Limits, Server};
///
/// let server = Server::new(router).limits(Limits::default().max_connections(100));
/// # let _ = server;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Server {
    pub(crate) router: Router,
    pub(crate) limits: Limits,
}

impl Server {
    /// A server for `router`, with default [`Limits`].
    pub fn new(router: Router) -> Self {
        Server {
            router,
            limits: Limits::default(),
        }
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The router requests are dispatched to.
    pub fn router(&self) -> &Router {
        &self.router
    }
}

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
}

#[derive(Debug, Default)]
struct Running {
    handles: HashMap<u64, AbortHandle>,
    next_key: u64,
    /// The deadline has passed: a task spawned now is dropped at once.
    aborted: bool,
}

impl Lifecycle {
    /// Runs `task` until it ends or the server aborts.
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
        self.stopping.cancel();
        self.tasks.close();
        let in_time = tokio::time::timeout(deadline, self.tasks.wait())
            .await
            .is_ok();
        if !in_time {
            self.abort();
            self.tasks.wait().await;
        }
        in_time
    }
}

/// A running server: where it listens and how to stop it.
///
/// Dropping the handle leaves the server running; call
/// [`shutdown`](ServerHandle::shutdown) to stop it.
///
/// ```no_run
/// # async fn demo(router: rpc_runtime::Router) -> std::io::Result<()> {
/// use rpc_runtime::transport::Server;
/// use rpc_runtime::transport::stream::Framing;
///
/// let handle = Server::new(router).serve_tcp("127.0.0.1:0", Framing::Lines).await?;
/// println!("listening on tcp://{}", handle.local_addr().unwrap());
/// // ... later: stop accepting, let requests in flight answer, then close.
/// let finished_in_time = handle.shutdown().await;
/// # let _ = finished_in_time; Ok(()) }
/// ```
#[derive(Debug)]
#[must_use = "dropping the handle leaves the server running with no way to stop it"]
pub struct ServerHandle {
    local_addr: Option<SocketAddr>,
    lifecycle: Lifecycle,
    shutdown_timeout: Duration,
}

impl ServerHandle {
    pub(crate) fn new(
        local_addr: Option<SocketAddr>,
        lifecycle: Lifecycle,
        shutdown_timeout: Duration,
    ) -> Self {
        ServerHandle {
            local_addr,
            lifecycle,
            shutdown_timeout,
        }
    }

    /// The address the server listens on (with the real port when it was
    /// bound to port 0); `None` for servers without a socket.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local_addr
    }

    /// Stops accepting connections and reading new requests, lets requests in
    /// flight finish and send their replies (up to
    /// [`Limits::shutdown_timeout`]), then closes every connection.
    ///
    /// Returns `true` if everything finished before the deadline.
    pub async fn shutdown(self) -> bool {
        self.lifecycle.shut_down(self.shutdown_timeout).await
    }

    /// Resolves once the server has stopped: after a shutdown, or when a
    /// single-connection server (stdio) sees its peer close.
    pub async fn stopped(&self) {
        self.lifecycle.tasks.wait().await;
    }
}

/// Binds a TCP listener.
pub(crate) async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> io::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}

/// Accepts connections until the server stops, serving each with `serve`
/// while there is room under the connection limit. A connection beyond the
/// limit is sent `refusal` (best effort) and closed at once.
pub(crate) fn accept_loop<F, Fut>(
    listener: TcpListener,
    limits: &Limits,
    lifecycle: &Lifecycle,
    refusal: &'static [u8],
    serve: F,
) where
    F: Fn(TcpStream, SocketAddr) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limits.connections()));
    let connections = lifecycle.clone();
    let stopping = lifecycle.stopping.clone();
    lifecycle.spawn(async move {
        loop {
            let accepted = tokio::select! {
                () = stopping.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait for some to free up.
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            match slots.clone().try_acquire_owned() {
                Ok(slot) => {
                    let connection = serve(stream, peer);
                    connections.spawn(async move {
                        connection.await;
                        drop(slot);
                    });
                }
                Err(_) => {
                    tracing::warn!(%peer, "connection refused: too many connections");
                    let _ = stream.try_write(refusal);
                }
            }
        }
    });
}
