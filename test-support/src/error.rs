//! The error of every provisioning step: one sentence that says what is
//! missing and what to run, printed as is by `unwrap`.

use std::fmt;

/// What could not be provisioned, and what to do about it.
///
/// `Debug` prints the message as `Display` does, so a test's `unwrap()`
/// shows the sentence and not a struct.
///
/// ```
/// use typed_rpc_test_support::Error;
///
/// let err = Error::new("npm is not on PATH: install Node.js 20 or later");
/// assert_eq!(format!("{err:?}"), "npm is not on PATH: install Node.js 20 or later");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(String);

/// A result whose error is an [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}
