//! Why connecting to a URL failed: a URL or setting that is wrong, or a transport that could not connect.

use std::fmt;

use crate::client::ClientError;

/// A failure of [`connect`](crate::connect()): either nothing was tried,
/// because the URL or a setting for it is wrong, or the transport could not
/// connect.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// use typed_rpc::ClientError;
/// use typed_rpc::client::TransportErrorKind;
/// use typed_rpc::connect::ConnectError;
///
/// let err = typed_rpc::connect("gopher://example.com/").await.unwrap_err();
/// assert!(err.is_invalid());
///
/// let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// let address = listener.local_addr().unwrap();
/// drop(listener); // nobody listens there any more
/// match typed_rpc::connect(&format!("tcp://{address}")).await.unwrap_err() {
///     ConnectError::Failed { error: ClientError::Transport(error), .. } => {
///         assert_eq!(error.kind(), TransportErrorKind::Connect);
///     }
///     other => panic!("{other}"),
/// }
/// # }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL names no transport this build has, or is malformed, or a
    /// setting does not fit it (headers on `tcp://`): nothing was tried.
    Invalid {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The transport could not connect: a [`Transport`](ClientError::Transport)
    /// error of kind `Connect` (refused, no such program, a TLS failure)
    /// or `Timeout` (the connector's timeout passed), or an
    /// [`Http`](ClientError::Http) error for a WebSocket handshake the
    /// server answered with another status than `101`.
    Failed {
        /// The URL as given.
        url: String,
        /// What the transport reported.
        error: ClientError,
    },
}

impl ConnectError {
    pub(super) fn invalid(url: &str, reason: impl Into<String>) -> Self {
        ConnectError::Invalid {
            url: url.to_owned(),
            reason: reason.into(),
        }
    }

    #[cfg(feature = "duplex")]
    pub(super) fn failed(url: &str, error: ClientError) -> Self {
        ConnectError::Failed {
            url: url.to_owned(),
            error,
        }
    }

    /// Whether the URL or a setting is wrong, so that nothing was tried: a
    /// usage error, not a network one.
    pub fn is_invalid(&self) -> bool {
        matches!(self, ConnectError::Invalid { .. })
    }

    /// The URL that was being connected to.
    pub fn url(&self) -> &str {
        match self {
            ConnectError::Invalid { url, .. } | ConnectError::Failed { url, .. } => url,
        }
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Invalid { url, reason } => write!(f, "`{url}`: {reason}"),
            ConnectError::Failed { url, error } => write!(f, "connecting to {url}: {error}"),
        }
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConnectError::Invalid { .. } => None,
            ConnectError::Failed { error, .. } => Some(error),
        }
    }
}
