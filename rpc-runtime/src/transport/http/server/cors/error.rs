//! [`CorsError`]: a [`Cors`](super::Cors) that no browser could match.

use std::fmt;

/// An origin or a header name given to a [`Cors`](super::Cors) that no
/// browser could send: an origin that is not `scheme://host[:port]` (a
/// path, a query, a trailing `/`, user information), or a header name with
/// characters a header name cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorsError {
    /// What was given, as it was given.
    given: String,
    /// What it is not, and why.
    reason: &'static str,
}

impl CorsError {
    pub(super) fn new(given: &str, reason: &'static str) -> Self {
        CorsError {
            given: given.to_owned(),
            reason,
        }
    }
}

impl fmt::Display for CorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.given, self.reason)
    }
}

impl std::error::Error for CorsError {}
