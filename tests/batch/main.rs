//! Typed batches from the generated client: each call's result typed as its
//! client method returns it, in order, with notifications among them, on
//! HTTP, WebSocket and TCP (and in process), and the server's batch limit.

mod api;
#[path = "../support/connect.rs"]
mod connect;
mod handles;
mod transports;
