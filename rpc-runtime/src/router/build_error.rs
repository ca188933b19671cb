//! Why a router could not be built.

use std::fmt;

/// Why a [`Router`](crate::Router) could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two services define the same method name or alias.
    DuplicateMethod {
        /// The method name.
        method: &'static str,
        /// The service that defined it first.
        first: &'static str,
        /// The service that defined it again.
        second: &'static str,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::DuplicateMethod {
                method,
                first,
                second,
            } => {
                write!(
                    f,
                    "method `{method}` is defined by both `{first}` and `{second}`"
                )
            }
        }
    }
}

impl std::error::Error for BuildError {}
