//! Both sides of the protocol as `#[rpc]` traits: what Tally's server serves, and what it asks of the editor.
//!
//! [`LanguageServer`] lists the methods the server implements;
//! [`LanguageServerClient`] is the typed client an editor (or a test)
//! drives it with. [`Editor`] lists what the server calls back into the
//! editor; the server calls it through [`EditorClient`] over its
//! connection, and a Rust editor serves it with [`EditorService`].
//!
//! Each method declares its turn (see [`typed_rpc::Turn`]): state-changing
//! messages (`didOpen`, `didChange`, configuration, the lifecycle) are
//! `exclusive`, so they run alone and in arrival order; reads (hover,
//! completion, ...) are `shared` and run concurrently between them. Reads
//! are keyed by their document, and `didChange` and `didClose`
//! `supersede`: a read of a document still in flight when the document
//! changes is dropped and answered `-32801` ContentModified. The slow
//! `workspace/executeCommand` declares nothing: it runs after the changes
//! before it, and the changes after it do not wait for it.

use lsp_types::{
    CompletionParams, CompletionResponse, ConfigurationParams, DidChangeConfigurationParams,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DocumentFormattingParams, DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverParams, InitializeParams,
    InitializeResult, InitializedParams, LogMessageParams, ProgressParams,
    PublishDiagnosticsParams, RenameParams, ShowMessageParams, TextDocumentIdentifier, TextEdit,
    Uri, WorkDoneProgressCancelParams, WorkDoneProgressCreateParams, WorkspaceEdit,
};
use serde::{Deserialize, Serialize};
use typed_rpc::{Context, RpcResult, rpc};

/// What the server holds for a document: `tally/documentText`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentText {
    pub uri: Uri,
    pub version: i32,
    pub text: String,
}

/// The methods a Tally language server serves. Unknown members of params
/// are ignored, as clients send fields of newer protocol versions.
#[rpc(allow_unknown_params)]
pub trait LanguageServer {
    /// Starts the session: the client's capabilities in, the server's out.
    #[method(name = "initialize", exclusive)]
    async fn initialize(
        &self,
        #[context] cx: &Context,
        #[params] params: InitializeParams,
    ) -> RpcResult<InitializeResult>;

    /// The client has the server's capabilities: the server asks for its settings.
    #[notification(name = "initialized", exclusive)]
    async fn initialized(&self, #[params] params: InitializedParams);

    /// Ends the session; answered `null`, after which requests are refused.
    #[method(name = "shutdown", exclusive)]
    async fn shutdown(&self) -> RpcResult<()>;

    /// Ends the process: code 0 after `shutdown`, 1 without.
    #[notification(name = "exit", exclusive)]
    async fn exit(&self);

    /// A document was opened: its text and version.
    #[notification(name = "textDocument/didOpen", exclusive, key = "/textDocument/uri")]
    async fn did_open(&self, #[params] params: DidOpenTextDocumentParams);

    /// A document changed: edits to apply in order.
    #[notification(
        name = "textDocument/didChange",
        exclusive,
        key = "/textDocument/uri",
        supersede
    )]
    async fn did_change(&self, #[params] params: DidChangeTextDocumentParams);

    /// A document was closed.
    #[notification(
        name = "textDocument/didClose",
        exclusive,
        key = "/textDocument/uri",
        supersede
    )]
    async fn did_close(&self, #[params] params: DidCloseTextDocumentParams);

    /// The editor's settings changed.
    #[notification(name = "workspace/didChangeConfiguration", exclusive)]
    async fn did_change_configuration(&self, #[params] params: DidChangeConfigurationParams);

    /// The binding or function under the cursor, and its value.
    #[method(name = "textDocument/hover", shared, key = "/textDocument/uri")]
    async fn hover(&self, #[params] params: HoverParams) -> RpcResult<Option<Hover>>;

    /// The names that can be written at the cursor.
    #[method(name = "textDocument/completion", shared, key = "/textDocument/uri")]
    async fn completion(
        &self,
        #[params] params: CompletionParams,
    ) -> RpcResult<Option<CompletionResponse>>;

    /// Where the name under the cursor is bound.
    #[method(name = "textDocument/definition", shared, key = "/textDocument/uri")]
    async fn definition(
        &self,
        #[params] params: GotoDefinitionParams,
    ) -> RpcResult<Option<GotoDefinitionResponse>>;

    /// The bindings of a document.
    #[method(
        name = "textDocument/documentSymbol",
        shared,
        key = "/textDocument/uri"
    )]
    async fn document_symbol(
        &self,
        #[params] params: DocumentSymbolParams,
    ) -> RpcResult<Option<DocumentSymbolResponse>>;

    /// Renames a binding and every use of it.
    #[method(name = "textDocument/rename", shared, key = "/textDocument/uri")]
    async fn rename(&self, #[params] params: RenameParams) -> RpcResult<Option<WorkspaceEdit>>;

    /// Lays a document out the one way Tally is written.
    #[method(name = "textDocument/formatting", shared, key = "/textDocument/uri")]
    async fn formatting(
        &self,
        #[params] params: DocumentFormattingParams,
    ) -> RpcResult<Option<Vec<TextEdit>>>;

    /// Runs `tally.evaluate`: every open document, one at a time, slowly
    /// enough to show its work-done progress; cancellable.
    #[method(name = "workspace/executeCommand")]
    async fn execute_command(
        &self,
        #[context] cx: &Context,
        #[params] params: ExecuteCommandParams,
    ) -> RpcResult<Option<serde_json::Value>>;

    /// The user cancelled a progress the server started.
    #[notification(name = "window/workDoneProgress/cancel")]
    async fn cancel_progress(&self, #[params] params: WorkDoneProgressCancelParams);

    /// The text and version the server holds for a document (as
    /// rust-analyzer's "view file text" shows it): to check that the server
    /// and the editor agree.
    #[method(name = "tally/documentText", shared, key = "/uri")]
    async fn document_text(
        &self,
        #[params] params: TextDocumentIdentifier,
    ) -> RpcResult<DocumentText>;
}

/// What a language server asks of its editor.
#[rpc(allow_unknown_params)]
pub trait Editor {
    /// A line for the editor's log of the server.
    #[notification(name = "window/logMessage")]
    async fn log_message(&self, #[params] params: LogMessageParams);

    /// A message to show the user.
    #[notification(name = "window/showMessage")]
    async fn show_message(&self, #[params] params: ShowMessageParams);

    /// A document's diagnostics, replacing those published before.
    #[notification(name = "textDocument/publishDiagnostics")]
    async fn publish_diagnostics(&self, #[params] params: PublishDiagnosticsParams);

    /// The settings of each item's section, in the items' order.
    #[method(name = "workspace/configuration")]
    async fn configuration(
        &self,
        #[params] params: ConfigurationParams,
    ) -> RpcResult<Vec<serde_json::Value>>;

    /// Creates a progress token the server then reports on.
    #[method(name = "window/workDoneProgress/create")]
    async fn create_progress(
        &self,
        #[params] params: WorkDoneProgressCreateParams,
    ) -> RpcResult<()>;

    /// Begins, reports on or ends a progress.
    #[notification(name = "$/progress")]
    async fn progress(&self, #[params] params: ProgressParams);
}
