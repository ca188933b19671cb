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
//!
//! Every server enforces the same [`Limits`] and shuts down gracefully
//! through its [`ServerHandle`].

#[cfg(feature = "duplex")]
mod connection;
#[cfg(feature = "http")]
pub mod http;
mod limits;
mod server;
#[cfg(feature = "stream")]
pub mod stream;
mod sync;
#[cfg(feature = "ws")]
pub mod ws;

#[cfg(feature = "duplex")]
pub use connection::{Connection, Inbound, MessageReader, MessageWriter};
pub use limits::Limits;
pub use server::{Server, ServerHandle};

#[cfg(feature = "http")]
pub use self::http::{HttpClient, HttpService};
#[cfg(feature = "ws")]
pub use self::ws::WsConnector;
