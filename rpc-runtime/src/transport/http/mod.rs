//! JSON-RPC over HTTP: a hyper 1 server that is also a `tower::Service`, and
//! a pooled client (cargo feature `http`).
//!
//! One request is one `POST` whose body is a request, a notification or a
//! batch; the reply is the body of the `200` response, or a `204` when there
//! is nothing to answer. JSON-RPC errors travel in `200` responses like any
//! other reply; HTTP statuses other than `200` and `204` are the HTTP
//! layer's own refusals (see [`Server::serve_http`](super::Server::serve_http)).
//!
//! | file | its job |
//! |---|---|
//! | `service.rs` | [`HttpService`], the `tower::Service`, and what its requests share |
//! | `respond.rs` | answering one request |
//! | `checks.rs` | what the request's headers declare |
//! | `accept.rs` | content negotiation: whether the client takes an event stream |
//! | `cors/` | browser clients: [`Cors`], and the `Origin` checks |
//! | `refusal.rs` | the HTTP layer's own refusals |
//! | `listener.rs` | one accepted connection, under its header timeout |
//! | `protocols.rs` | the HTTP versions a connection speaks (HTTP/2 with the `http2` feature) |
//! | `read_body.rs` | reading a body whole, up to a limit (server and client) |
//! | `response_body.rs` | [`ResponseBody`] |
//! | `sse/` | answering with Server-Sent Events |
//! | `header_wait.rs` | the header timeout of a kept-alive connection |
//! | `client.rs` | [`HttpClient`] |
//! | `connector.rs` | how the client connects: TCP, or TLS with ALPN (the `tls` feature) |
//! | `forwarded.rs` | the client's address behind a trusted proxy |
//! | `event_stream.rs` | the client's reading of Server-Sent Events |
//! | `version_1.rs` | the client's JSON-RPC 1.0 mode |
//!
//! The WebSocket layer stands on this one: it answers handshakes through
//! the hook `Shared::upgrade`, which this layer calls without naming it.

mod accept;
mod checks;
mod client;
mod connector;
mod cors;
mod event_stream;
mod forwarded;
mod header_wait;
mod listener;
mod protocols;
mod read_body;
mod refusal;
mod respond;
mod response_body;
mod service;
mod sse;
mod version_1;

#[cfg(feature = "ws")]
pub(crate) use client::retry_after;
pub use client::{HttpClient, HttpClientBuilder, HttpConfigError};
#[cfg(feature = "ws")]
pub(crate) use cors::admits_handshake;
pub use cors::{Cors, CorsError};
#[cfg(feature = "ws")]
pub(crate) use forwarded::client_addr;
pub(crate) use listener::serve_connection;
pub(crate) use protocols::{ConnectionBuilder, connection_builder};
#[cfg(feature = "ws")]
pub(crate) use refusal::origin_refused;
#[cfg(feature = "ws")]
pub(crate) use refusal::{method_not_allowed, plain};
pub use response_body::ResponseBody;
#[cfg(feature = "ws")]
pub(crate) use service::Handover;
pub use service::{HttpResponseFuture, HttpService};
pub(crate) use service::{Shared, Upgrade};
pub use sse::EventSender;
