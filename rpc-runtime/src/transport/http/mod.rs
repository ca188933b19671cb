//! JSON-RPC over HTTP: a hyper 1 server that is also a `tower::Service`, and
//! a pooled client (cargo feature `http`).
//!
//! One request is one `POST` whose body is a request, a notification or a
//! batch; the reply is the body of the `200` response, or a `204` when there
//! is nothing to answer. JSON-RPC errors travel in `200` responses like any
//! other reply; HTTP statuses other than `200` and `204` are the HTTP
//! layer's own refusals (see [`Server::serve_http`](super::Server::serve_http)).
//!
//! | module | its job |
//! |---|---|
//! | `server/` | [`HttpService`], the `tower::Service`, and everything the server checks and answers |
//! | `client/` | [`HttpClient`], its connections and its JSON-RPC 1.0 mode |
//! | `sse/` | Server-Sent Events, both halves: the server's event stream and the client's reading of one |
//! | `read_body.rs` | reading a body whole, up to a limit (server and client) |
//!
//! The WebSocket layer stands on this one: it answers handshakes through
//! the hook `Shared::upgrade`, which this layer calls without naming it.

mod client;
mod read_body;
mod server;
mod sse;

pub use client::{HttpClient, HttpClientBuilder, HttpConfigError};
#[cfg(feature = "ws")]
pub(crate) use client::{request_header, retry_after};
#[cfg(feature = "ws")]
pub(crate) use server::Handover;
pub(crate) use server::{ConnectionBuilder, Shared, Upgrade, connection_builder, serve_connection};
pub use server::{Cors, CorsError, HttpResponseFuture, HttpService, ResponseBody};
#[cfg(feature = "ws")]
pub(crate) use server::{admits_handshake, client_addr, method_not_allowed, origin_refused, plain};
pub use sse::EventSender;
