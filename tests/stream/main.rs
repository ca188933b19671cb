//! Byte-stream transports: the framings, TCP, in-memory streams and the
//! example programs on stdio, and peers that fault.

#[path = "../support/mod.rs"]
mod support;

mod faults;
mod framing;
mod stdio;
mod tcp;
