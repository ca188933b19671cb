//! The JSON-RPC 2.0 wire format: ids, requests and responses.

#[cfg(feature = "duplex")]
mod classify;
mod id;
mod request;
mod response;

#[cfg(feature = "duplex")]
pub(crate) use classify::{Incoming, classify, is_object};
pub use id::Id;
pub(crate) use request::Request;
pub(crate) use request::{Entry, Message, invalid_request, parse};
pub use response::Response;
pub(crate) use response::{failure, success};
