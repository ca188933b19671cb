//! Transports: thin loops around the [`Router`](crate::Router) and the client core.
//!
//! Each transport sits behind a cargo feature, so a user who needs only the
//! protocol core compiles none of them:
//!
//! | feature | server | client |
//! |---|---|---|
//! | `http` | [`Server::serve_http`], also a `tower::Service` ([`HttpService`]) to mount in axum | [`HttpClient`] |
//! | `stream` | newline-delimited or `Content-Length` framing over stdio, TCP or any byte stream | TCP, a child process's stdio, any byte stream |
//! | `ws` | WebSocket upgrades on the port of [`Server::serve_http`] (and of [`HttpService`]), see [`ws`] | [`WsConnector`] |
//! | `http2` | HTTP/2 on [`Server::serve_http`] too (h2c with prior knowledge) | |
//! | `tls` | `Server::serve_https` (ALPN `h2` and `http/1.1`), see `tls` | `https://` on [`HttpClient`], `wss://` on [`WsConnector`] |
//!
//! Every server enforces the same [`Limits`] and shuts down gracefully
//! through its [`ServerHandle`]; a [`ServerGroup`] shuts several down as one.

use std::time::Duration;

#[cfg(feature = "duplex")]
mod connection;
#[cfg(feature = "http")]
pub mod http;
mod limits;
mod server;
#[cfg(feature = "stream")]
pub mod stream;
mod sync;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(feature = "ws")]
pub mod ws;

#[cfg(feature = "duplex")]
pub use connection::{Connection, Inbound, MessageReader, MessageWriter, Serialized};
pub use limits::Limits;
pub use server::{Server, ServerGroup, ServerHandle};

#[cfg(feature = "http")]
pub use self::http::{HttpClient, HttpService};
#[cfg(feature = "ws")]
pub use self::ws::WsConnector;

/// How long a client call waits for its reply unless told otherwise: on
/// [`HttpClient`] (see [`HttpClientBuilder::timeout`](http::HttpClientBuilder::timeout))
/// and on every [`Connection`] handle, WebSocket and streams alike (see
/// [`Connection::with_timeout`]). Both take `None` for no timeout at all.
///
/// Thirty seconds: long past what a healthy server takes to answer, short
/// enough that a call to a server that went away does not hang its caller.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);
