//! Streaming methods: Server-Sent Events over HTTP, subscriptions over
//! WebSocket, TCP and stdio, read by our client and by raw peers.

#[path = "../support/connect.rs"]
mod connect;

mod api;
mod bounds;
mod early;
mod ends;
mod foreign;
mod negotiation;
mod raw;
mod sse;
mod subscriptions;
mod typed;
