//! The server half of JSON-RPC over HTTP: [`HttpService`], the
//! `tower::Service` a hyper server (or axum) runs, and what it checks and
//! answers on each request.
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
//! | `header_wait.rs` | the header timeout of a kept-alive connection |
//! | `protocols.rs` | the HTTP versions a connection speaks (HTTP/2 with the `http2` feature) |
//! | `response_body.rs` | [`ResponseBody`] |
//! | `forwarded.rs` | the client's address behind a trusted proxy |

mod accept;
mod checks;
mod cors;
mod forwarded;
mod header_wait;
mod listener;
mod protocols;
mod refusal;
mod respond;
mod response_body;
mod service;

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
pub(in crate::transport::http) use respond::{AnsweredLater, reply_response};
pub use response_body::ResponseBody;
#[cfg(feature = "ws")]
pub(crate) use service::Handover;
pub use service::{HttpResponseFuture, HttpService};
pub(crate) use service::{Shared, Upgrade};
