//! The WebSocket transport, end to end on loopback: the server and client,
//! and RFC 6455 framing spoken by hand.

#[path = "../support/mod.rs"]
mod support;

mod protocol;
mod server;
