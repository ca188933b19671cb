//! The JSON-RPC 2.0 wire format: ids, requests and responses.

mod id;
mod request;
mod response;

pub use id::Id;
pub use request::Request;
pub(crate) use request::{Entry, Message, invalid_request, parse};
pub use response::Response;
pub(crate) use response::{failure, success};
