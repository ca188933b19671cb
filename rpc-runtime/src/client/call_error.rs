//! The error of a generated client method whose trait names its own error
//! type: that type, typed, beside the layers of [`ClientError`].

use std::fmt;

use super::{ClientError, DecodeError, HttpError, TransportError, TransportErrorKind};
use crate::ErrorObject;

/// Why a client call of a method with an application error type `E` failed.
///
/// A generated client returns it for a method whose error type derives
/// `RpcError`: an error object the server sent that `E` recognises arrives
/// as [`App`](CallError::App), typed; every other failure keeps the layer it
/// has in [`ClientError`].
///
/// ```
/// use typed_rpc::client::{CallError, UnknownError};
/// use typed_rpc::{ClientError, ErrorObject};
///
/// #[derive(Debug, PartialEq)]
/// struct NotFound;
///
/// impl TryFrom<ErrorObject> for NotFound {
///     type Error = UnknownError;
///     fn try_from(err: ErrorObject) -> Result<Self, UnknownError> {
///         match err.code() {
///             1001 => Ok(NotFound),
///             _ => Err(UnknownError::new(err)),
///         }
///     }
/// }
///
/// let err = CallError::<NotFound>::from(ClientError::Rpc(ErrorObject::new(1001, "Not found")));
/// assert_eq!(err.app_error(), Some(&NotFound));
/// let err = CallError::<NotFound>::from(ClientError::Rpc(ErrorObject::method_not_found()));
/// assert_eq!(err.rpc_error().map(ErrorObject::code), Some(-32601));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError<E> {
    /// The server answered with an error object that `E` recognises.
    App(E),
    /// The message could not be delivered or its reply did not arrive.
    Transport(TransportError),
    /// The HTTP server answered with a status other than 2xx.
    Http(HttpError),
    /// The server answered with an error object that is not one of `E`'s:
    /// a protocol error (`-32601`, `-32602`, ...) or a code `E` does not know.
    Rpc(ErrorObject),
    /// The reply was not a valid JSON-RPC response, or its result did not fit
    /// the declared type.
    Decode(DecodeError),
    /// The params could not be serialized.
    Encode(serde_json::Error),
}

impl<E> CallError<E> {
    /// The application error, if the server answered with one of `E`'s.
    pub fn app_error(&self) -> Option<&E> {
        match self {
            CallError::App(err) => Some(err),
            _ => None,
        }
    }

    /// The application error, or `self` back when this is another layer.
    pub fn into_app_error(self) -> Result<E, Self> {
        match self {
            CallError::App(err) => Ok(err),
            other => Err(other),
        }
    }

    /// The server's error object when it is not one of `E`'s.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            CallError::Rpc(err) => Some(err),
            _ => None,
        }
    }

    /// Whether the call timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, CallError::Transport(err) if err.kind() == TransportErrorKind::Timeout)
    }

    /// Whether the server shut down before the call or the stream ended.
    pub fn is_shutdown(&self) -> bool {
        matches!(self, CallError::Transport(err) if err.kind() == TransportErrorKind::Shutdown)
    }
}

impl<E: TryFrom<ErrorObject, Error = UnknownError>> From<ClientError> for CallError<E> {
    /// Sorts a [`ClientError`] into its layer, recognising `E`'s error objects.
    fn from(err: ClientError) -> Self {
        match err {
            ClientError::Transport(err) => CallError::Transport(err),
            ClientError::Http(err) => CallError::Http(err),
            ClientError::Rpc(err) => match E::try_from(err) {
                Ok(app) => CallError::App(app),
                Err(unknown) => CallError::Rpc(unknown.into_error_object()),
            },
            ClientError::Decode(err) => CallError::Decode(err),
            ClientError::Encode(err) => CallError::Encode(err),
        }
    }
}

impl<E: Into<ErrorObject>> From<CallError<E>> for ClientError {
    /// The same failure in the untyped layers: an application error becomes
    /// the error object it travelled as.
    fn from(err: CallError<E>) -> Self {
        match err {
            CallError::App(err) => ClientError::Rpc(err.into()),
            CallError::Transport(err) => ClientError::Transport(err),
            CallError::Http(err) => ClientError::Http(err),
            CallError::Rpc(err) => ClientError::Rpc(err),
            CallError::Decode(err) => ClientError::Decode(err),
            CallError::Encode(err) => ClientError::Encode(err),
        }
    }
}

impl<E: fmt::Display> fmt::Display for CallError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::App(err) => write!(f, "the server answered with an error: {err}"),
            CallError::Transport(err) => write!(f, "transport error: {err}"),
            CallError::Http(err) => write!(f, "HTTP error: {err}"),
            CallError::Rpc(err) => write!(f, "the server answered with an error: {err}"),
            CallError::Decode(err) => write!(f, "invalid reply: {err}"),
            CallError::Encode(err) => write!(f, "the params could not be serialized: {err}"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for CallError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::App(err) => Some(err),
            CallError::Transport(err) => Some(err),
            CallError::Http(err) => Some(err),
            CallError::Rpc(err) => Some(err),
            CallError::Decode(err) => Some(err),
            CallError::Encode(err) => Some(err),
        }
    }
}

/// An error object that an application error type does not recognise: its
/// code is not one of the type's, or its `data` does not fit the variant.
/// The object comes back whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownError(ErrorObject);

impl UnknownError {
    /// Wraps the object that was not recognised.
    pub fn new(err: ErrorObject) -> Self {
        UnknownError(err)
    }

    /// The object that was not recognised.
    pub fn error_object(&self) -> &ErrorObject {
        &self.0
    }

    /// Unwraps the object that was not recognised.
    pub fn into_error_object(self) -> ErrorObject {
        self.0
    }
}

impl fmt::Display for UnknownError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an error object the error type does not know: {}",
            self.0
        )
    }
}

impl std::error::Error for UnknownError {}
