//! The WebSocket transport, end to end on loopback: the server and client,
//! RFC 6455 framing spoken by hand, and peers that fault.

#[path = "../support/mod.rs"]
mod support;

mod faults;
mod origin;
mod protocol;
mod server;
