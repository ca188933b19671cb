//! The runtime of [typed-rpc](https://docs.rs/typed-rpc): JSON-RPC 2.0 wire
//! types, params decoding, the router and the client core.
//!
//! Most users depend on the `typed-rpc` facade crate and write `#[rpc]`
//! traits; this crate holds everything the generated code calls. The
//! protocol core does no I/O: a [`Router`] takes request text and returns
//! response text, so every transport is a thin loop around it.
//!
//! | module | owns |
//! |---|---|
//! | [`wire`] | [`Id`], [`Response`]; requests are parsed in one borrowing pass by the router |
//! | [`error`] | [`ErrorObject`] and the standard [`code`]s |
//! | [`params`] | decoding params by position or name, with `-32602` details |
//! | [`router`] | the method table, batches, notifications, panic isolation, limits |
//! | [`service`] | the [`RpcService`] interface between router and methods |
//! | [`streaming`] | streaming methods: Server-Sent Events and subscriptions |
//! | [`context`] | per-request [`Context`]: transport, peer, HTTP headers, connection |
//! | [`middleware`] | [`CallLayer`](middleware::CallLayer): code around each call; the call's `tracing` span |
//! | [`cancel`] | [`CancelPolicy`]: the notification that cancels a request in flight |
//! | [`metadata`] | static descriptions of services, methods and params |
//! | `schema` | OpenRPC documents and JSON Schemas of the params and results (cargo feature `schema`) |
//! | [`client`] | the [`Transport`](client::Transport) interface, params encoding, [`ClientError`] |
//! | `connect` | [`AnyTransport`](client::AnyTransport) from a URL: `http(s)://`, `ws(s)://`, `tcp://`, `stdio:` (cargo features) |
//! | `transport` | HTTP, WebSocket and stream transports, limits, graceful shutdown (cargo features) |

#![warn(missing_docs)]
// Unsafe code lives in one module, `service::slot`, which allows it; every
// unsafe block there says why it is sound.
#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

#[macro_use]
mod cfg;

pub mod cancel;
#[doc(hidden)]
pub mod choose;
pub mod client;
#[cfg(any(feature = "http", feature = "stream"))]
pub mod connect;
pub mod context;
pub mod error;
#[doc(hidden)]
pub mod error_info;
pub mod metadata;
pub mod middleware;
pub mod params;
pub mod router;
#[cfg(feature = "schema")]
pub mod schema;
pub mod service;
pub mod streaming;
#[cfg(feature = "rt")]
pub mod transport;
pub mod wire;
mod with_schema;

#[doc(hidden)]
pub mod __private;

/// The `http` crate, for the types of [`Context::headers`] and of the HTTP
/// client's settings (`http::HeaderMap`, `http::header::AUTHORIZATION`)
/// without a dependency of one's own.
#[cfg(feature = "http")]
pub use http;

pub use cancel::CancelPolicy;
pub use client::{CallError, ClientError};
#[cfg(any(feature = "http", feature = "stream"))]
pub use connect::{Connector, connect};
pub use context::{Context, TransportKind};
pub use error::{ErrorObject, RpcResult, code};
pub use metadata::{
    Access, ErrorInfo, ErrorList, ExampleInfo, MethodInfo, MethodKind, ParamInfo, ParamStyle,
    ServiceInfo, StreamFallback, StreamInfo, Turn,
};
pub use params::{DecodeParams, Whole};
pub use router::{BuildError, Router, RouterBuilder};
pub use service::{Call, HandlerFuture, HandlerSlot, IntoResponse, RpcService};
pub use wire::{Id, Response};
