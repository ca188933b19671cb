//! The HTTP transport, end to end on loopback, and peers that fault.

#[path = "../support/mod.rs"]
mod support;

mod cors;
mod faults;
mod forwarded;
mod server;
