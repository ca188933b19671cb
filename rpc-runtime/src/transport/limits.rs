//! Limits every server transport enforces, with defaults fit for the open network.

use std::time::Duration;

/// What a server accepts before it refuses, and how long it waits.
///
/// Each limit, when hit, gets a clean refusal rather than a crash or a hang:
/// an oversized message is refused before it is buffered (HTTP `413`, or a
/// `-32600` error on streams), a connection beyond the limit takes the slot
/// of one idle long enough or is closed at once, and a connection whose peer does not read its replies stops being
/// read (backpressure) instead of queueing replies without bound. The batch
/// length is the router's limit ([`RouterBuilder::max_batch_len`](crate::RouterBuilder::max_batch_len)).
///
/// ```
/// use std::time::Duration;
/// use typed_rpc::transport::Limits;
///
/// let limits = Limits::default()
///     .max_message_size(1 << 20)
///     .max_connections(256)
///     .shutdown_timeout(Duration::from_secs(5));
/// assert_eq!(limits.message_size(), 1 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    max_message_size: usize,
    max_connections: usize,
    max_connections_per_peer: Option<usize>,
    idle_timeout_at_capacity: Duration,
    max_in_flight: usize,
    shutdown_timeout: Duration,
    header_timeout: Duration,
    body_timeout: Duration,
    idle_timeout: Duration,
    write_timeout: Duration,
    keep_alive_interval: Duration,
    max_subscriptions: usize,
    max_server_subscriptions: usize,
    trusted_proxies: Vec<std::net::IpAddr>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_size: 10 * 1024 * 1024,
            max_connections: 1024,
            max_connections_per_peer: None,
            idle_timeout_at_capacity: Duration::from_secs(1),
            max_in_flight: 64,
            shutdown_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
            write_timeout: Duration::from_secs(60),
            keep_alive_interval: Duration::from_secs(15),
            max_subscriptions: 64,
            max_server_subscriptions: 8192,
            trusted_proxies: Vec::new(),
        }
    }
}

impl Limits {
    /// The largest message accepted, in bytes: an HTTP body, a WebSocket
    /// message, a line, or a declared `Content-Length` (default 10 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// The most connections served at once (default 1024).
    ///
    /// A slot is not kept by whoever took it: when every slot is taken, a
    /// new connection takes the slot of the connection idle longest (no
    /// request in flight, no message for at least
    /// [`idle_timeout_at_capacity`](Self::idle_timeout_at_capacity)), which
    /// is closed gracefully: an HTTP connection between two requests, a
    /// WebSocket with close code `1013`, a TCP connection after its last
    /// reply. Only when every connection is busy or idle for less than that
    /// is the new one refused, as soon as it is accepted (`503` on HTTP).
    /// From three quarters full on, idle timeouts shrink too: see
    /// [`idle_timeout_at_capacity`](Self::idle_timeout_at_capacity).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// The most connections served at once to one client address, counted
    /// per listener (default: no limit but [`max_connections`](Self::max_connections)).
    /// A connection beyond it is refused as soon as it is accepted: `429`
    /// with `Retry-After` on HTTP, a `-32000` error on TCP. The address is
    /// the socket's peer: behind a reverse proxy every client shares the
    /// proxy's.
    pub fn max_connections_per_peer(mut self, connections: usize) -> Self {
        self.max_connections_per_peer = Some(connections.max(1));
        self
    }

    /// The idle timeout of every connection when the server is full
    /// (default 1 s), and the least time a connection idles before a new
    /// one may take its slot.
    ///
    /// From three quarters of [`max_connections`](Self::max_connections)
    /// on, each idle timeout ([`header_timeout`](Self::header_timeout)
    /// between HTTP requests, [`idle_timeout`](Self::idle_timeout) on
    /// WebSocket and TCP) shrinks in proportion, from its own value to this
    /// one when full, as a proxy's overload manager does; a connection with
    /// a request in flight is never closed for it. Checked four times a
    /// second.
    pub fn idle_timeout_at_capacity(mut self, timeout: Duration) -> Self {
        self.idle_timeout_at_capacity = timeout;
        self
    }

    /// The most requests one connection may have running at once (default
    /// 64). Beyond it the server stops reading from that connection until one
    /// finishes.
    pub fn max_in_flight(mut self, requests: usize) -> Self {
        self.max_in_flight = requests.max(1);
        self
    }

    /// How long a graceful shutdown waits for requests in flight (default 30 s).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// How long an HTTP client may take to send a request's headers
    /// (default 10 s), counted from the connection's opening or from the
    /// previous response: a kept-alive connection idle for that long is
    /// closed too, without a response. An HTTP connection is closed up to
    /// a quarter of the timeout later than that: its one timer looks four
    /// times per timeout, so that a request costs no clock read. A TCP peer
    /// has as long to send its first message.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long an HTTP client may take to send a request's body, once its
    /// headers are in (default 30 s). A body still incomplete then is
    /// answered `408 Request Timeout` and the connection is closed: a client
    /// cannot hold a connection by trickling its body a byte at a time.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How long a connection may stay without any message before it is
    /// closed (default 5 minutes), give or take: it is closed up to a
    /// quarter of the timeout later (its one timer looks four times per
    /// timeout, so that a message costs no clock read).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long one write to a WebSocket or TCP peer may take (default
    /// 60 s): a reply, or the flush after a run of replies, that has not
    /// gone out by then ends the connection, so a peer that stops reading
    /// cannot hold its connection (and a place under `max_connections`) for
    /// ever. The whole write must finish in that time: a reply larger than
    /// the kernel's buffers must be taken within it, however steadily the
    /// peer reads. On WebSocket the closing handshake then waits its own
    /// 5 s. Not applied to stdio, whose peer is the parent process.
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// How often a Server-Sent Events response with nothing to send writes
    /// a comment line (`: keep-alive`), so that proxies keep it open and a
    /// client that has gone away is noticed (default 15 s).
    pub fn keep_alive_interval(mut self, interval: Duration) -> Self {
        self.keep_alive_interval = interval;
        self
    }

    /// The most subscriptions live at once on one WebSocket, TCP or stdio
    /// connection (default 64, at least 1); a streaming call beyond it is
    /// answered `-32000` `"Too many subscriptions"`.
    pub fn max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_subscriptions = subscriptions.max(1);
        self
    }

    /// The most subscriptions live at once across all the connections of
    /// one `serve_http`, `serve_tcp` or `serve_stdio` (default 8192, at
    /// least 1); a streaming call beyond it is answered `-32000` `"Too many
    /// subscriptions"`, as one beyond [`max_subscriptions`](Limits::max_subscriptions) is.
    pub fn max_server_subscriptions(mut self, subscriptions: usize) -> Self {
        self.max_server_subscriptions = subscriptions.max(1);
        self
    }

    /// Believes the client address that the reverse proxies at `proxies`
    /// record in `Forwarded` (RFC 7239) or `X-Forwarded-For`, for the
    /// requests whose connection comes from one of them (HTTP and the
    /// WebSocket handshake): [`Context::remote_addr`](crate::Context::remote_addr)
    /// is then the nearest recorded address that is not a trusted proxy
    /// (port 0 when none was recorded). Off by default: from anyone else
    /// the headers are ignored, since a client can write them itself. The
    /// connection limits still count the proxy's own address: the headers
    /// come after the connection is admitted.
    ///
    /// ```
    /// use typed_rpc::transport::Limits;
    ///
    /// let limits = Limits::default().trust_forwarded_from(["10.0.0.1".parse().unwrap()]);
    /// assert_eq!(limits.trusted_proxies().len(), 1);
    /// ```
    pub fn trust_forwarded_from(
        mut self,
        proxies: impl IntoIterator<Item = std::net::IpAddr>,
    ) -> Self {
        self.trusted_proxies = proxies.into_iter().collect();
        self
    }

    /// See [`trust_forwarded_from`](Limits::trust_forwarded_from).
    pub fn trusted_proxies(&self) -> &[std::net::IpAddr] {
        &self.trusted_proxies
    }

    /// See [`max_server_subscriptions`](Limits::max_server_subscriptions).
    pub fn server_subscriptions(&self) -> usize {
        self.max_server_subscriptions
    }

    /// See [`keep_alive_interval`](Limits::keep_alive_interval).
    pub fn keep_alive(&self) -> Duration {
        self.keep_alive_interval
    }

    /// See [`max_subscriptions`](Limits::max_subscriptions).
    pub fn subscriptions(&self) -> usize {
        self.max_subscriptions
    }

    /// The largest message accepted, in bytes (see [`max_message_size`](Limits::max_message_size)).
    pub fn message_size(&self) -> usize {
        self.max_message_size
    }

    /// The most connections served at once.
    pub fn connections(&self) -> usize {
        self.max_connections
    }

    /// The most connections served at once to one address, if limited.
    pub fn connections_per_peer(&self) -> Option<usize> {
        self.max_connections_per_peer
    }

    /// The idle timeout of every connection when the server is full.
    pub fn idle_wait_at_capacity(&self) -> Duration {
        self.idle_timeout_at_capacity
    }

    /// The most requests running at once on one connection.
    pub fn in_flight(&self) -> usize {
        self.max_in_flight
    }

    /// How long a graceful shutdown waits.
    pub fn shutdown_wait(&self) -> Duration {
        self.shutdown_timeout
    }

    /// How long an HTTP client may take to send headers.
    pub fn header_wait(&self) -> Duration {
        self.header_timeout
    }

    /// How long an HTTP client may take to send a body.
    pub fn body_wait(&self) -> Duration {
        self.body_timeout
    }

    /// How long a connection may stay idle.
    pub fn idle_wait(&self) -> Duration {
        self.idle_timeout
    }

    /// How long one write may wait for the peer to read.
    pub fn write_wait(&self) -> Duration {
        self.write_timeout
    }
}
