//! The JSON-RPC 2.0 wire format: ids, requests and responses.

#[cfg(feature = "duplex")]
mod classify;
#[cfg(feature = "duplex")]
mod head;
mod id;
mod member;
#[cfg(feature = "duplex")]
mod notification;
mod request;
mod request_object;
mod response;

#[cfg(feature = "duplex")]
pub(crate) use classify::{Incoming, classify, is_object};
#[cfg(feature = "duplex")]
pub(crate) use head::Head;
pub use id::Id;
#[cfg(feature = "duplex")]
pub(crate) use notification::Notification;
pub(crate) use request::Request;
pub(crate) use request::{Entry, Message, invalid_request, parse};
pub use response::Response;
pub(crate) use response::{failure, success};
