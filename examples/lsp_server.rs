//! A tiny LSP-style server on stdio with `Content-Length` framing: it answers
//! `textDocument/hover` by asking its client for configuration and logging
//! on it, through the same kind of generated client a remote caller uses.
//! It is the smallest example of calls from a server back into its client
//! (`tests/stream/stdio.rs` drives it); a real language server, with
//! documents, positions, the lifecycle and ordered edits, is the
//! `typed-rpc-lsp` crate in `examples/lsp/`.
//!
//! ```text
//! lsp_server      # speaks on stdin and stdout until stdin ends
//! ```

#[path = "common/lsp_api.rs"]
mod lsp_api;

use std::sync::atomic::{AtomicBool, Ordering};

use lsp_api::{EditorClient, HoverParams, Language, LogMessage};
use typed_rpc::transport::Server;
use typed_rpc::transport::stream::Framing;
use typed_rpc::{Context, ErrorObject, Router, RpcResult};

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
