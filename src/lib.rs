//! Typed JSON-RPC 2.0 APIs from Rust traits.
//!
//! Put [`#[rpc]`](rpc) on a trait and get a server dispatcher, params decoding
//! that accepts positional and named params and answers `-32602` with a
//! useful reason, and a typed client, all on the small runtime re-exported
//! here.
#![doc = include_str!("../README.md")]

pub use rpc_macros::rpc;
pub use rpc_runtime::*;
