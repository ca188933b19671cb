//! The A2A errors, `-32001` to `-32009`, each carrying a `google.rpc.ErrorInfo`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use typed_rpc::RpcError;

/// The `domain` of every A2A `ErrorInfo`.
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// The `@type` of a `google.rpc.ErrorInfo` in proto JSON.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// An A2A error, recoverable as itself from the generated client
/// (`CallError::App`). Its `data` is the list of error details the
/// specification asks for, an `ErrorInfo` first.
#[derive(Clone, Debug, PartialEq, RpcError)]
// `Display` below adds the code to the message.
#[rpc_error(no_display)]
pub enum A2aError {
    /// No task with that id (or not one the caller may see).
    #[rpc_error(code = -32001, reserved, message = "Task not found")]
    TaskNotFound(ErrorDetails),
    /// The task has ended and cannot be canceled.
    #[rpc_error(code = -32002, reserved, message = "Task cannot be canceled")]
    TaskNotCancelable(ErrorDetails),
    /// The agent does not push notifications.
    #[rpc_error(code = -32003, reserved, message = "Push Notification is not supported")]
    PushNotificationNotSupported(ErrorDetails),
    /// The agent does not do that (here, or to a task in this state).
    #[rpc_error(code = -32004, reserved, message = "This operation is not supported")]
    UnsupportedOperation(ErrorDetails),
    /// A media type the agent does not take or give.
    #[rpc_error(code = -32005, reserved, message = "Incompatible content types")]
    ContentTypeNotSupported(ErrorDetails),
    /// The agent's own answer broke the protocol.
    #[rpc_error(code = -32006, reserved, message = "Invalid agent response")]
    InvalidAgentResponse(ErrorDetails),
    /// The card says there is an extended card, but none is configured.
    #[rpc_error(code = -32007, reserved, message = "Extended agent card not configured")]
    ExtendedAgentCardNotConfigured(ErrorDetails),
    /// The request lacks an extension the agent requires.
    #[rpc_error(code = -32008, reserved, message = "Extension support required")]
    ExtensionSupportRequired(ErrorDetails),
    /// The `A2A-Version` asked for is not spoken here.
    #[rpc_error(code = -32009, reserved, message = "Protocol version not supported")]
    VersionNotSupported(ErrorDetails),
    /// JSON-RPC's own `-32602`: a param the handler refuses (a page token it
    /// did not give out, an unreadable timestamp); `data` says which.
    #[rpc_error(code = -32602, reserved, message = "Invalid params")]
    InvalidParams(ErrorDetails),
    /// JSON-RPC's own `-32603`: the server failed (its task store, say).
    #[rpc_error(code = -32603, reserved, message = "Internal error")]
    Internal(ErrorDetails),
}

impl A2aError {
    /// `-32001` for the task `task_id`.
    pub fn task_not_found(task_id: &str) -> Self {
        A2aError::TaskNotFound(ErrorDetails::new("TASK_NOT_FOUND", [("taskId", task_id)]))
    }

    /// `-32002` for the task `task_id`.
    pub fn task_not_cancelable(task_id: &str) -> Self {
        A2aError::TaskNotCancelable(ErrorDetails::new(
            "TASK_NOT_CANCELABLE",
            [("taskId", task_id)],
        ))
    }

    /// `-32003`.
    pub fn push_notification_not_supported() -> Self {
        A2aError::PushNotificationNotSupported(ErrorDetails::new(
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
            [],
        ))
    }

    /// `-32004`, saying what is not supported.
    pub fn unsupported_operation(what: &str) -> Self {
        A2aError::UnsupportedOperation(ErrorDetails::new(
            "UNSUPPORTED_OPERATION",
            [("detail", what)],
        ))
    }

    /// `-32007`: the card offers an extended card, but none can be served
    /// (here: the server authenticates no one to serve it to).
    pub fn extended_agent_card_not_configured() -> Self {
        A2aError::ExtendedAgentCardNotConfigured(ErrorDetails::new(
            "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            [],
        ))
    }

    /// `-32005`, saying which media types do not meet.
    pub fn content_type_not_supported(detail: &str) -> Self {
        A2aError::ContentTypeNotSupported(ErrorDetails::new(
            "CONTENT_TYPE_NOT_SUPPORTED",
            [("detail", detail)],
        ))
    }

    /// `-32008` for the extension `uri`, which the agent requires.
    pub fn extension_support_required(uri: &str) -> Self {
        A2aError::ExtensionSupportRequired(ErrorDetails::new(
            "EXTENSION_SUPPORT_REQUIRED",
            [("extension", uri)],
        ))
    }

    /// `-32009` for the version the client asked for; `supported` lists
    /// the versions spoken here.
    pub fn version_not_supported(version: &str) -> Self {
        A2aError::VersionNotSupported(ErrorDetails::new(
            "VERSION_NOT_SUPPORTED",
            [("version", version), ("supported", crate::PROTOCOL_VERSION)],
        ))
    }

    /// `-32009` for a request without `A2A-Version`, which the
    /// specification reads as 0.3.
    pub fn version_missing() -> Self {
        A2aError::VersionNotSupported(ErrorDetails::new(
            "VERSION_NOT_SUPPORTED",
            [
                ("version", "0.3"),
                ("supported", crate::PROTOCOL_VERSION),
                (
                    "detail",
                    "a request without an A2A-Version header speaks 0.3; send A2A-Version: 1.0",
                ),
            ],
        ))
    }

    /// `-32602` for the param `param`, saying why.
    pub fn invalid_params(param: &str, reason: &str) -> Self {
        A2aError::InvalidParams(ErrorDetails::new(
            "INVALID_PARAMS",
            [("param", param), ("reason", reason)],
        ))
    }

    /// `-32603`, saying what failed.
    pub fn internal(what: &str) -> Self {
        A2aError::Internal(ErrorDetails::new("INTERNAL", [("detail", what)]))
    }

    /// `-32603` with the reason `UNAVAILABLE`: the server cannot do it now
    /// (its task store is unreachable) and the same call may succeed after
    /// `retryAfterSeconds`; nothing the call asked for was done.
    pub fn unavailable(what: &str) -> Self {
        A2aError::Internal(ErrorDetails::new(
            "UNAVAILABLE",
            [("detail", what), ("retryAfterSeconds", "1")],
        ))
    }

    /// The `ErrorInfo` the error carries.
    pub fn info(&self) -> Option<&ErrorInfo> {
        let (A2aError::TaskNotFound(details)
        | A2aError::TaskNotCancelable(details)
        | A2aError::PushNotificationNotSupported(details)
        | A2aError::UnsupportedOperation(details)
        | A2aError::ContentTypeNotSupported(details)
        | A2aError::InvalidAgentResponse(details)
        | A2aError::ExtendedAgentCardNotConfigured(details)
        | A2aError::ExtensionSupportRequired(details)
        | A2aError::VersionNotSupported(details)
        | A2aError::InvalidParams(details)
        | A2aError::Internal(details)) = self;
        details.0.first()
    }
}

impl std::fmt::Display for A2aError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let error = typed_rpc::ErrorObject::from(self.clone());
        write!(f, "{} ({})", error.message(), error.code())
    }
}

impl std::error::Error for A2aError {}

/// The error `data`: a list of details, each with its `@type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorDetails(pub Vec<ErrorInfo>);

impl ErrorDetails {
    /// One `ErrorInfo` in the A2A domain.
    pub fn new<'a>(reason: &str, metadata: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        ErrorDetails(vec![ErrorInfo {
            type_url: ERROR_INFO_TYPE.into(),
            reason: reason.into(),
            domain: ERROR_DOMAIN.into(),
            metadata: metadata
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect(),
        }])
    }
}

/// `google.rpc.ErrorInfo`: why, in which domain, with what context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// `type.googleapis.com/google.rpc.ErrorInfo`.
    #[serde(rename = "@type")]
    pub type_url: String,
    /// The error, UPPER_SNAKE_CASE (`TASK_NOT_FOUND`).
    pub reason: String,
    /// `a2a-protocol.org`.
    pub domain: String,
    /// Context, such as the task's id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_carries_its_error_info_both_ways() {
        let error = typed_rpc::ErrorObject::from(A2aError::task_not_found("t1"));
        assert_eq!(error.code(), -32001);
        let wire = serde_json::to_value(&error).unwrap();
        assert_eq!(
            wire["data"],
            json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"taskId": "t1"}
            }])
        );
        assert_eq!(
            A2aError::try_from(error).unwrap(),
            A2aError::task_not_found("t1")
        );
    }
}
