//! Byte-stream transports: the framings, TCP, in-memory streams and the
//! example programs on stdio.

#[path = "../support/mod.rs"]
mod support;

mod framing;
mod stdio;
mod tcp;
