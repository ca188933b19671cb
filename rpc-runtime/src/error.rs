//! The JSON-RPC error object and the standard error codes.

use std::borrow::Cow;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The standard error codes of JSON-RPC 2.0.
///
/// Codes from `-32768` to `-32000` are reserved by the specification;
/// `-32099..=-32000` are left to implementations for server errors. Every
/// other code belongs to the application.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error (a handler panicked, a result failed to serialize).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The server is shutting down: the last item of a stream it cuts short
    /// (an SSE event, or a subscription's notification), which a client
    /// reads as a [`Shutdown`](crate::client::TransportErrorKind::Shutdown)
    /// transport error. One of the codes left to implementations; this
    /// crate's own.
    pub const SHUTTING_DOWN: i64 = -32090;
    /// The first code of the range left to implementations for server errors.
    pub const SERVER_ERROR_FIRST: i64 = -32099;
    /// The last code of the range left to implementations for server errors.
    pub const SERVER_ERROR_LAST: i64 = -32000;

    /// Whether `code` lies in `-32768..=-32000`, the range the specification reserves.
    ///
    /// ```
    /// use typed_rpc::code;
    /// assert!(code::is_reserved(code::INVALID_PARAMS));
    /// assert!(!code::is_reserved(3));
    /// ```
    pub const fn is_reserved(code: i64) -> bool {
        -32768 <= code && code <= -32000
    }
}

/// Shorthand for the result of an RPC method whose errors are plain [`ErrorObject`]s.
pub type RpcResult<T> = Result<T, ErrorObject>;

/// A JSON-RPC 2.0 error object: `code`, `message` and optional `data`.
///
/// Handlers return it (directly through [`RpcResult`], or from their own error
/// type through `Into<ErrorObject>`); clients receive it inside
/// [`ClientError::Rpc`](crate::ClientError::Rpc).
///
/// ```
/// use typed_rpc::ErrorObject;
///
/// let err = ErrorObject::new(-32001, "Task not found").with_data(&serde_json::json!({"id": "t1"}));
/// assert_eq!(err.code(), -32001);
/// assert_eq!(
///     serde_json::to_string(&err).unwrap(),
///     r#"{"code":-32001,"message":"Task not found","data":{"id":"t1"}}"#
/// );
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorObject {
    code: i64,
    message: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Box<RawValue>>,
}

impl ErrorObject {
    /// An error with the given code and message and no `data`.
    pub fn new(code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`, serialized to JSON.
    ///
    /// A value that cannot be serialized (a map with non-string keys, say)
    /// leaves the error without `data` and is logged: an error report must not
    /// itself fail.
    pub fn with_data<T: Serialize + ?Sized>(mut self, data: &T) -> Self {
        match serde_json::value::to_raw_value(data) {
            Ok(raw) => self.data = Some(raw),
            Err(err) => tracing::warn!(%err, "error data could not be serialized; sent without it"),
        }
        self
    }

    /// `-32700`: the request was not valid JSON.
    pub fn parse_error() -> Self {
        ErrorObject::new(code::PARSE_ERROR, "Parse error")
    }

    /// `-32600`: the JSON was not a valid request object.
    pub fn invalid_request() -> Self {
        ErrorObject::new(code::INVALID_REQUEST, "Invalid Request")
    }

    /// `-32601`: no such method.
    pub fn method_not_found() -> Self {
        ErrorObject::new(code::METHOD_NOT_FOUND, "Method not found")
    }

    /// `-32602`: the params did not fit the method.
    pub fn invalid_params() -> Self {
        ErrorObject::new(code::INVALID_PARAMS, "Invalid params")
    }

    /// `-32603`: the server failed while handling the request.
    pub fn internal_error() -> Self {
        ErrorObject::new(code::INTERNAL_ERROR, "Internal error")
    }

    /// `-32090`: the server is shutting down, and cuts the stream short
    /// (see [`code::SHUTTING_DOWN`]).
    pub fn shutting_down() -> Self {
        ErrorObject::new(code::SHUTTING_DOWN, "Server shutting down")
    }

    /// The error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The short description of the error.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `data` member as raw JSON, if present.
    pub fn data(&self) -> Option<&RawValue> {
        self.data.as_deref()
    }

    /// Decodes the `data` member into `T`; `None` when there is no `data`.
    ///
    /// ```
    /// use typed_rpc::ErrorObject;
    ///
    /// let err = ErrorObject::invalid_params().with_data(&[1, 2]);
    /// let data: Vec<u8> = err.data_as().unwrap().unwrap();
    /// assert_eq!(data, [1, 2]);
    /// ```
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        self.data
            .as_deref()
            .map(|raw| serde_json::from_str(raw.get()))
    }
}

impl PartialEq for ErrorObject {
    /// Errors are equal when their code, message and `data` text are.
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.message == other.message
            && self.data().map(RawValue::get) == other.data().map(RawValue::get)
    }
}

impl Eq for ErrorObject {}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ": {}", data.get())?;
        }
        Ok(())
    }
}

impl std::error::Error for ErrorObject {}
