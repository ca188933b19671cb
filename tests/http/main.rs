//! The HTTP transport, end to end on loopback.

#[path = "../support/mod.rs"]
mod support;

mod server;
