//! A tiny LSP-style server on stdio with `Content-Length` framing: it answers
//! `textDocument/hover` by asking its client for configuration and logging
//! on it, through the same kind of generated client a remote caller uses.
//!
//! ```text
//! lsp_server      # speaks on stdin and stdout until stdin ends
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use typed_rpc::transport::Server;
use typed_rpc::transport::stream::Framing;
use typed_rpc::{Context, ErrorObject, Router, RpcResult, rpc};

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

#[derive(Default)]
struct LanguageServer {
    initialized: AtomicBool,
}

impl Language for LanguageServer {
    async fn initialize(&self, _params: serde_json::Value) -> RpcResult<serde_json::Value> {
        self.initialized.store(true, Ordering::Relaxed);
        Ok(serde_json::json!({ "capabilities": { "hoverProvider": true } }))
    }

    async fn hover(&self, cx: &Context, params: HoverParams) -> RpcResult<String> {
        if !self.initialized.load(Ordering::Relaxed) {
            return Err(ErrorObject::new(-32002, "Server not initialized"));
        }
        let connection = cx.connection().ok_or_else(ErrorObject::internal_error)?;
        let editor = EditorClient::new(connection.clone());
        let style = editor
            .configuration("hover".to_owned())
            .await
            .map_err(|err| {
                ErrorObject::new(-32803, "Request failed").with_data(&err.to_string())
            })?;
        let log = LogMessage {
            kind: 3,
            message: format!("hover on `{}`", params.word),
        };
        // A failed log line is not worth failing the hover for.
        let _ = editor.log_message(log).await;
        Ok(match style["style"].as_str() {
            Some("loud") => format!("**{}**", params.word.to_uppercase()),
            _ => format!("`{}`", params.word),
        })
    }

    async fn shutdown(&self) -> RpcResult<()> {
        Ok(())
    }
}

#[tokio::main]
async fn main() {
    let router = Router::new(LanguageServer::default().into_service());
    // stdout carries only messages: anything else goes to stderr.
    eprintln!("lsp_server: serving stdio");
    Server::new(router)
        .serve_stdio(Framing::ContentLength)
        .stopped()
        .await;
}
