//! Which HTTP versions a connection of [`Server::serve_http`] speaks, and
//! the builder that serves them: HTTP/1.1 alone, or (the `http2` feature)
//! HTTP/1.1 and HTTP/2 told apart by the connection's first bytes: the
//! HTTP/2 preface (h2c with prior knowledge, or `h2` chosen by ALPN over
//! TLS) or an HTTP/1.1 request line.
//!
//! [`Server::serve_http`]: crate::transport::Server::serve_http

use crate::transport::Limits;

/// Serves one connection's HTTP (see the module's docs).
#[cfg(not(feature = "http2"))]
pub(crate) type ConnectionBuilder = hyper::server::conn::http1::Builder;

/// Serves one connection's HTTP (see the module's docs).
#[cfg(feature = "http2")]
pub(crate) type ConnectionBuilder =
    hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor>;

/// The builder for the connections of a server under `limits`.
#[cfg(not(feature = "http2"))]
pub(crate) fn connection_builder(_limits: &Limits) -> ConnectionBuilder {
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The header timeout is the connection's own (`HeaderWait`): hyper's
    // costs a timer per request.
    builder.header_read_timeout(None).keep_alive(true);
    builder
}

/// The builder for the connections of a server under `limits`.
#[cfg(feature = "http2")]
pub(crate) fn connection_builder(limits: &Limits) -> ConnectionBuilder {
    use hyper_util::rt::{TokioExecutor, TokioTimer};

    let mut builder = ConnectionBuilder::new(TokioExecutor::new());
    // The header timeout is the connection's own (`HeaderWait`), for both
    // versions: hyper's costs a timer per request.
    builder.http1().header_read_timeout(None).keep_alive(true);
    // Streams are an HTTP/2 connection's requests in flight: the same
    // bound as a WebSocket connection's. hyper answers a stream beyond it
    // with `REFUSED_STREAM`, which clients retry on another connection.
    // The pings find a peer that went away while its streams were open.
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(u32::try_from(limits.in_flight()).unwrap_or(u32::MAX))
        .keep_alive_interval(limits.keep_alive())
        .keep_alive_timeout(limits.keep_alive());
    builder
}
