//! Byte-stream transports: the framings, TCP, in-memory streams, the
//! example programs on stdio, hostile input, and peers that fault.

#[path = "../support/mod.rs"]
mod support;

mod faults;
mod framing;
mod hostile;
mod stdio;
mod tcp;
