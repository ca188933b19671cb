//! The errors a client call can end with, in the layers a caller acts on.

use std::fmt;
use std::time::Duration;

use crate::ErrorObject;

/// Why a client call failed.
///
/// The variants are the layers of a call, from the outside in, so a caller
/// can act on each: retry on [`Transport`](ClientError::Transport), back off
/// on an [`Http`](ClientError::Http) `429`, show or match the server's
/// [`Rpc`](ClientError::Rpc) error, report a [`Decode`](ClientError::Decode)
/// failure as a bug on one side or the other.
///
/// ```
/// use typed_rpc::{ClientError, ErrorObject};
///
/// #[derive(Debug, PartialEq)]
/// struct TaskNotFound(String);
///
/// impl TryFrom<ErrorObject> for TaskNotFound {
///     type Error = ErrorObject;
///     fn try_from(err: ErrorObject) -> Result<Self, ErrorObject> {
///         match (err.code(), err.data_as::<String>()) {
///             (-32001, Some(Ok(id))) => Ok(TaskNotFound(id)),
///             _ => Err(err),
///         }
///     }
/// }
///
/// let err = ClientError::Rpc(ErrorObject::new(-32001, "Task not found").with_data("t1"));
/// assert_eq!(err.into_app_error::<TaskNotFound>().unwrap(), TaskNotFound("t1".into()));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The message could not be delivered or its reply did not arrive:
    /// connecting failed, the connection was lost, or the call timed out.
    Transport(TransportError),
    /// The HTTP server answered with a status other than 2xx.
    Http(HttpError),
    /// The server answered with a JSON-RPC error object.
    Rpc(ErrorObject),
    /// The reply was not a valid JSON-RPC response, or its result did not fit
    /// the declared type.
    Decode(DecodeError),
    /// The params could not be serialized.
    Encode(serde_json::Error),
}

impl ClientError {
    /// The server's error object, if the server answered with one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc(err) => Some(err),
            _ => None,
        }
    }

    /// Recovers a typed application error from the server's error object.
    ///
    /// Returns `self` unchanged when this is not an [`Rpc`](ClientError::Rpc)
    /// error or when `E` does not accept the object.
    pub fn into_app_error<E: TryFrom<ErrorObject>>(self) -> Result<E, ClientError> {
        match self {
            ClientError::Rpc(err) => E::try_from(err.clone()).map_err(|_| ClientError::Rpc(err)),
            other => Err(other),
        }
    }

    /// Whether the call timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, ClientError::Transport(err) if err.kind() == TransportErrorKind::Timeout)
    }

    /// Whether the server shut down before the call or the stream ended.
    pub fn is_shutdown(&self) -> bool {
        matches!(self, ClientError::Transport(err) if err.kind() == TransportErrorKind::Shutdown)
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Transport(err) => write!(f, "transport error: {err}"),
            ClientError::Http(err) => write!(f, "HTTP error: {err}"),
            ClientError::Rpc(err) => write!(f, "the server answered with an error: {err}"),
            ClientError::Decode(err) => write!(f, "invalid reply: {err}"),
            ClientError::Encode(err) => write!(f, "the params could not be serialized: {err}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Transport(err) => Some(err),
            ClientError::Http(err) => Some(err),
            ClientError::Rpc(err) => Some(err),
            ClientError::Decode(err) => Some(err),
            ClientError::Encode(err) => Some(err),
        }
    }
}

impl From<TransportError> for ClientError {
    fn from(err: TransportError) -> Self {
        ClientError::Transport(err)
    }
}

/// What went wrong below JSON-RPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The connection could not be made.
    Connect,
    /// The connection was closed or lost before the reply arrived.
    Closed,
    /// No reply arrived in time.
    Timeout,
    /// The server shut down before the reply or the end of the stream: it
    /// cut a stream short, saying so (see
    /// [`code::SHUTTING_DOWN`](crate::code::SHUTTING_DOWN)).
    Shutdown,
    /// The message was refused locally (too large for the transport's limit).
    Refused,
    /// Any other I/O failure.
    Io,
    /// A stream's items were lost: the peer sent more of them before the
    /// subscription's answer than a client keeps (the stream says so, then
    /// ends, rather than go on with a gap).
    Lost,
}

/// A failure to deliver a message or to receive its reply.
#[derive(Debug)]
pub struct TransportError {
    kind: TransportErrorKind,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl TransportError {
    /// An error of `kind` with no underlying cause.
    pub fn new(kind: TransportErrorKind) -> Self {
        TransportError { kind, source: None }
    }

    /// An error of `kind` caused by `source`.
    pub fn with_source(
        kind: TransportErrorKind,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        TransportError {
            kind,
            source: Some(source.into()),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            TransportErrorKind::Connect => "could not connect",
            TransportErrorKind::Closed => "connection closed",
            TransportErrorKind::Timeout => "timed out",
            TransportErrorKind::Shutdown => "the server shut down",
            TransportErrorKind::Refused => "refused",
            TransportErrorKind::Io => "I/O error",
            TransportErrorKind::Lost => "items lost",
        };
        match &self.source {
            Some(source) => write!(f, "{what}: {source}"),
            None => f.write_str(what),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|s| s as _)
    }
}

/// A non-2xx HTTP status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpError {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
}

impl HttpError {
    /// A status with its `Retry-After` delay (when given) and the start of the body.
    pub fn new(status: u16, retry_after: Option<Duration>, body: impl Into<String>) -> Self {
        HttpError {
            status,
            retry_after,
            body: body.into(),
        }
    }

    /// The HTTP status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The delay the server asked for in `Retry-After`, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// The start of the response body, for diagnostics.
    pub fn body(&self) -> &str {
        &self.body
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "status {}", self.status)?;
        if let Some(delay) = self.retry_after {
            write!(f, " (retry after {}s)", delay.as_secs())?;
        }
        if !self.body.is_empty() {
            write!(f, ": {}", self.body)?;
        }
        Ok(())
    }
}

impl std::error::Error for HttpError {}

/// A reply that could not be read as the expected response.
#[derive(Debug)]
pub struct DecodeError {
    what: &'static str,
    source: serde_json::Error,
}

impl DecodeError {
    /// The reply was not a JSON-RPC 2.0 response.
    pub fn invalid_response(source: serde_json::Error) -> Self {
        DecodeError {
            what: "not a JSON-RPC 2.0 response",
            source,
        }
    }

    /// The result did not fit the declared type.
    pub fn result_type(source: serde_json::Error) -> Self {
        DecodeError {
            what: "the result does not fit the declared type",
            source,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.source)
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The error of a message whose peer has gone, or of a call whose
/// connection closed before its reply.
#[cold]
pub(crate) fn closed() -> ClientError {
    ClientError::Transport(TransportError::new(TransportErrorKind::Closed))
}
