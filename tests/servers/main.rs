//! A server on every transport at once: a graceful shutdown while HTTP,
//! WebSocket and TCP clients all keep it busy, and (ignored, run by hand)
//! a flood of 1 GiB on each transport with the process's memory sampled.
//! Neither belongs to one transport's crate: what they check is the
//! `Server` and its shutdown across all of them.

#[path = "../support/mod.rs"]
mod support;

mod flood;
mod shutdown;
