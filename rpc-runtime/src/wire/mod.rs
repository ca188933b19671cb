//! The JSON-RPC 2.0 wire format: ids, requests and responses.

#[cfg(feature = "rt")]
#[cfg_attr(not(feature = "stream"), allow(dead_code))] // used by two-way transports only
mod classify;
mod id;
mod request;
mod response;

#[cfg(feature = "rt")]
pub(crate) use classify::{Incoming, classify};
pub use id::Id;
pub use request::Request;
pub(crate) use request::{Entry, Message, invalid_request, parse};
pub use response::Response;
pub(crate) use response::{failure, success};
