//! The guide: typed-rpc's features one chapter at a time, every example compiled and tested.
//!
//! The [README](https://github.com/typed-rpc/typed-rpc#readme) is the front
//! page: what typed-rpc is and a quick start. These chapters are the rest,
//! in the order a new user meets them:
//!
//! 1. [`traits`]: what `#[rpc]` generates, its attributes, typed errors,
//!    typed batches, and the protocol rules the router keeps.
//! 2. [`clients`]: client errors, timeouts, connecting to whatever a URL
//!    names, and servers that speak JSON-RPC 1.0.
//! 3. [`transports`]: HTTP, WebSocket, TLS and HTTP/2, browsers (CORS),
//!    stdio, TCP and child processes, several listeners with one shutdown.
//! 4. [`connections`]: cancellation, and the turns messages take on a
//!    two-way connection.
//! 5. [`streaming`]: Server-Sent Events, subscriptions, progress
//!    notifications.
//! 6. [`middleware`]: call layers (authentication, rate limits, timing,
//!    metrics) and tracing spans.
//! 7. [`testing`]: testing a service in process, with the caller set.
//! 8. [`openrpc`]: OpenRPC documents, `rpc.discover`, and clients
//!    generated from a document.
//! 9. [`program`]: a whole program, server and client, over three
//!    transports.
//! 10. [`cli`]: the `typed-rpc` command-line client.
//!
//! The modules hold no code: each chapter is a Markdown file beside this
//! one, included as the module's documentation, so its examples are
//! doctests that `cargo test --workspace` compiles and runs.

#[doc = include_str!("traits.md")]
pub mod traits {}

#[doc = include_str!("clients.md")]
pub mod clients {}

#[doc = include_str!("transports.md")]
pub mod transports {}

#[doc = include_str!("connections.md")]
pub mod connections {}

#[doc = include_str!("streaming.md")]
pub mod streaming {}

#[doc = include_str!("middleware.md")]
pub mod middleware {}

#[doc = include_str!("testing.md")]
pub mod testing {}

#[doc = include_str!("openrpc.md")]
pub mod openrpc {}

#[doc = include_str!("program.md")]
pub mod program {}

#[doc = include_str!("cli.md")]
pub mod cli {}
