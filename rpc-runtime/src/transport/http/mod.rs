//! JSON-RPC over HTTP: a hyper 1 server that is also a `tower::Service`, and
//! a pooled client (cargo feature `http`).
//!
//! One request is one `POST` whose body is a request, a notification or a
//! batch; the reply is the body of the `200` response, or a `204` when there
//! is nothing to answer. JSON-RPC errors travel in `200` responses like any
//! other reply; HTTP statuses other than `200` and `204` are the HTTP
//! layer's own refusals (see [`Server::serve_http`](super::Server::serve_http)).

mod body;
mod client;
mod header_wait;
// `pub(crate)` for the WebSocket transport, which shares `server::Shared`.
pub(crate) mod server;
mod whole;

pub use body::ResponseBody;
#[cfg(feature = "ws")]
pub(crate) use client::retry_after;
pub use client::{HttpClient, HttpClientBuilder, HttpConfigError};
pub use server::{HttpResponseFuture, HttpService};
