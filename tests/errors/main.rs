//! `#[derive(RpcError)]` end to end: the server sends each variant with its
//! code, message and `data`, and the generated client returns it typed in
//! `CallError::App`, on every transport; an error object that is not one of
//! the type's stays in `CallError::Rpc`. The derive writes `Display` and
//! `Error` too, unless the user (or thiserror) does.

mod api;
#[path = "../support/connect.rs"]
mod connect;
mod conversions;
mod own_display;
mod transports;
