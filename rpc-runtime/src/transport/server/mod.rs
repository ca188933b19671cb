//! Servers: [`Server`], what each transport serves it with, and the
//! [`ServerHandle`] that stops it ([`ServerGroup`] for several at once).
//!
//! This is the layer above the transports: `http.rs` serves HTTP (and
//! chooses whether WebSocket handshakes are answered), `https.rs` HTTP over TLS, `stream.rs` byte
//! streams (stdio, TCP), `two_way.rs` a two-way connection over any message transport; `accept.rs` is the TCP accept loop under the
//! connection limits, `admission.rs` who is admitted (making room under pressure), `lifecycle.rs` the tasks and the graceful shutdown,
//! `group.rs` the shutdown of several servers as one.

use std::net::SocketAddr;
use std::time::Duration;

use crate::Router;
use crate::transport::Limits;

#[cfg(any(feature = "http", feature = "stream"))]
mod accept;
#[cfg(any(feature = "http", feature = "stream"))]
mod admission;
mod group;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "tls")]
mod https;
mod lifecycle;
#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "duplex")]
mod two_way;

#[cfg(any(feature = "http", feature = "stream"))]
pub(crate) use accept::{Refusals, accept_loop, bind};
pub use group::ServerGroup;
pub(crate) use lifecycle::Lifecycle;

/// A router and the limits its transports enforce: the starting point of
/// every server.
///
/// ```no_run
/// # async fn demo(router: typed_rpc::Router) -> std::io::Result<()> {
/// use typed_rpc::transport::{Limits, Server};
///
/// let server = Server::new(router).limits(Limits::default().max_connections(100));
/// # let _ = server;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Server {
    pub(crate) router: Router,
    pub(crate) limits: Limits,
    /// Which web pages may call the HTTP endpoint and open WebSockets.
    #[cfg(feature = "http")]
    pub(crate) cors: Option<std::sync::Arc<crate::transport::http::Cors>>,
}

impl Server {
    /// A server for `router`, with default [`Limits`].
    pub fn new(router: Router) -> Self {
        Server {
            router,
            limits: Limits::default(),
            #[cfg(feature = "http")]
            cors: None,
        }
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Lets the web pages that `cors` allows call the server from a
    /// browser: CORS on its HTTP endpoint ([`serve_http`](Server::serve_http)
    /// and [`into_http_service`](Server::into_http_service)), and WebSocket
    /// handshakes from their origins. Without it, only pages of the
    /// server's own origin may (see [`Cors`](crate::transport::http::Cors)).
    ///
    /// ```
    /// use typed_rpc::transport::Server;
    /// use typed_rpc::transport::http::Cors;
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// let server = Server::new(Router::new(Nothing))
    ///     .cors(Cors::allow_origins(["https://app.example.com"])?);
    /// # let _ = server;
    /// # Ok::<(), typed_rpc::transport::http::CorsError>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn cors(mut self, cors: crate::transport::http::Cors) -> Self {
        self.cors = Some(std::sync::Arc::new(cors));
        self
    }

    /// The router requests are dispatched to.
    pub fn router(&self) -> &Router {
        &self.router
    }
}

/// A running server: where it listens and how to stop it.
///
/// Dropping the handle leaves the server running; call
/// [`shutdown`](ServerHandle::shutdown) to stop it. To stop several servers
/// as one (an HTTP port and a TCP port, say), collect their handles into a
/// [`ServerGroup`].
///
/// ```no_run
/// # async fn demo(router: typed_rpc::Router) -> std::io::Result<()> {
/// use typed_rpc::transport::Server;
/// use typed_rpc::transport::stream::Framing;
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
    /// The handle of a server listening on `local_addr` (if it listens).
    #[cfg(any(feature = "http", feature = "duplex"))]
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
