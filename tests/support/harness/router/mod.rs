//! The router under hostile input: the services, the protocol oracle and a
//! model of requests with exact answers.

pub mod model;
pub mod oracle;
pub mod services;

use typed_rpc::Router;

/// The router's reply to `input`. Every method of [`services`] answers
/// without waiting, so the reply is ready on the first polls.
pub fn handle(router: &Router, input: &[u8]) -> Option<String> {
    super::block_on(router.handle(input), 16)
}
