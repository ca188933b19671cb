//! What a call came to, as a layer sees it.

use serde::Deserialize;

use crate::ErrorObject;

/// The start of every error response the runtime writes.
const ERROR_HEAD: &str = r#"{"jsonrpc":"2.0","error":"#;

/// The outcome of one call: its response text, or nothing for a
/// notification (and for a request the caller will not be answered on).
///
/// A layer reads it after [`Next::run`](super::Next::run) (for logging,
/// metrics, a span) and passes it on, or makes its own with
/// [`CallRequest::reject`](super::CallRequest::reject).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    text: Option<String>,
}

impl Reply {
    pub(crate) fn new(text: Option<String>) -> Self {
        Reply { text }
    }

    /// The response text, `None` when nothing is sent back.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The response text, to send.
    pub fn into_text(self) -> Option<String> {
        self.text
    }

    /// Whether the response carries an error object.
    pub fn is_error(&self) -> bool {
        self.text
            .as_deref()
            .is_some_and(|text| text.starts_with(ERROR_HEAD))
    }

    /// The error object of the response, if it carries one. Read back from
    /// the text, so a layer that does not ask pays nothing.
    pub fn error(&self) -> Option<ErrorObject> {
        #[derive(Deserialize)]
        struct Failure {
            error: ErrorObject,
        }
        let text = self.text.as_deref().filter(|_| self.is_error())?;
        serde_json::from_str::<Failure>(text)
            .ok()
            .map(|failure| failure.error)
    }
}
