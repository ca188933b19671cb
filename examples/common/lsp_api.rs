//! The API of the LSP-style example: what the language server serves and
//! what it expects its editor to serve. Shared by the server example and
//! the tests that drive it.

use serde::{Deserialize, Serialize};
use typed_rpc::{Context, RpcResult, rpc};

/// `window/logMessage` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogMessage {
    /// 1 error, 2 warning, 3 info, 4 log.
    #[serde(rename = "type")]
    pub kind: u8,
    /// The message.
    pub message: String,
}

/// `textDocument/hover` params, reduced to what this server reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoverParams {
    /// The word under the cursor.
    pub word: String,
}

/// What the client (the editor) serves to the server.
#[rpc]
pub trait Editor {
    /// Shows a message in the editor's log.
    #[notification(name = "window/logMessage")]
    async fn log_message(&self, #[params] params: LogMessage);

    /// The editor's settings for `section`.
    #[method(name = "workspace/configuration")]
    async fn configuration(&self, section: String) -> RpcResult<serde_json::Value>;
}

/// The language server.
#[rpc]
pub trait Language {
    /// Starts the session.
    #[method(name = "initialize")]
    async fn initialize(&self, #[params] params: serde_json::Value)
    -> RpcResult<serde_json::Value>;

    /// Describes the word under the cursor, in the style the editor asks for.
    #[method(name = "textDocument/hover")]
    async fn hover(
        &self,
        #[context] cx: &Context,
        #[params] params: HoverParams,
    ) -> RpcResult<String>;

    /// Ends the session; `exit` follows.
    #[method(name = "shutdown")]
    async fn shutdown(&self) -> RpcResult<()>;
}
