//! Tally's language server: the protocol's methods, on the document store and the language.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`TallyServer`]: its state, its router, and the [`LanguageServer`] methods |
//! | `session.rs` | what `initialize` learned, the settings, and the calls back to the editor |
//! | `evaluate.rs` | the `tally.evaluate` command, slow on purpose, with work-done progress |

mod evaluate;
mod session;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use lsp_types::{
    CompletionParams, CompletionResponse, DidChangeConfigurationParams,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DocumentFormattingParams, DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandOptions,
    ExecuteCommandParams, GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverParams,
    HoverProviderCapability, InitializeParams, InitializeResult, InitializedParams, MessageType,
    OneOf, RenameParams, ServerCapabilities, ServerInfo, TextDocumentIdentifier,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri, WorkDoneProgressCancelParams,
    WorkspaceEdit,
};
use tokio::sync::watch;
use typed_rpc::transport::Server;
use typed_rpc::transport::stream::Framing;
use typed_rpc::{CancelPolicy, Context, ErrorObject, Router, RpcResult, code};

use crate::protocol::{DocumentText, LanguageServer};
use crate::tally::{Analyzed, Settings};
use crate::{DocumentStore, Lifecycle, PositionEncoding};
use session::Session;

/// The Tally language server. Clones share one session; serve it with
/// [`router`](Self::router) on one connection, as editors run a server per
/// workspace on stdio.
///
/// ```no_run
/// # async fn demo() {
/// let code = typed_rpc_lsp::server::TallyServer::new().serve_stdio().await;
/// std::process::exit(code);
/// # }
/// ```
#[derive(Clone, Default)]
pub struct TallyServer {
    state: Arc<State>,
}

#[derive(Default)]
struct State {
    lifecycle: Arc<Lifecycle>,
    documents: DocumentStore,
    /// Each open document's latest analysis, made by the change that made the version.
    analyzed: Mutex<HashMap<Uri, Arc<Analyzed>>>,
    session: Session,
    /// Set by `exit`, to the process's exit code.
    exit: ExitSignal,
}

struct ExitSignal(watch::Sender<Option<i32>>);

impl Default for ExitSignal {
    fn default() -> Self {
        ExitSignal(watch::Sender::new(None))
    }
}

impl TallyServer {
    /// A server whose session has not started.
    pub fn new() -> Self {
        TallyServer::default()
    }

    /// The router that serves this server: its methods behind the
    /// lifecycle's checks, cancelled by `$/cancelRequest` (answered
    /// `-32800`).
    pub fn router(&self) -> Router {
        Router::builder()
            .service(self.clone().into_service())
            .layer(self.state.lifecycle.clone())
            .cancel_notification(CancelPolicy::lsp())
            .build()
            .expect("one service: no method is defined twice")
    }

    /// Serves LSP on stdin and stdout until `exit` arrives or stdin ends;
    /// returns the code the process should exit with (0 after `shutdown`,
    /// 1 otherwise).
    pub async fn serve_stdio(&self) -> i32 {
        let handle = Server::new(self.router()).serve_stdio(Framing::ContentLength);
        let code = tokio::select! {
            code = self.exited() => code,
            () = handle.stopped() => self.state.lifecycle.exit_code(),
        };
        // Whatever is still queued for the editor goes out first.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), handle.shutdown()).await;
        code
    }

    /// Resolves when `exit` arrives, with the process's exit code.
    pub async fn exited(&self) -> i32 {
        let mut exit = self.state.exit.0.subscribe();
        let code = exit.wait_for(Option::is_some).await.map(|code| *code);
        code.ok().flatten().unwrap_or(1)
    }

    /// The latest analysis of the document at `uri`, if it is open.
    fn analyzed(&self, uri: &Uri) -> Option<Arc<Analyzed>> {
        lock(&self.state.analyzed).get(uri).cloned()
    }

    fn settings(&self) -> Settings {
        self.state.session.settings()
    }

    /// Analyses the document's new version and publishes its diagnostics.
    async fn analyze(&self, uri: Uri, document: Arc<crate::Document>) {
        let analyzed = Arc::new(Analyzed::new(document));
        lock(&self.state.analyzed).insert(uri.clone(), analyzed.clone());
        self.state.session.publish(uri, &analyzed).await;
    }

    /// Publishes every open document's diagnostics again (after the settings changed).
    async fn republish(&self) {
        let all: Vec<(Uri, Arc<Analyzed>)> = lock(&self.state.analyzed)
            .iter()
            .map(|(uri, analyzed)| (uri.clone(), analyzed.clone()))
            .collect();
        for (uri, analyzed) in all {
            self.state.session.publish(uri, &analyzed).await;
        }
    }
}

impl LanguageServer for TallyServer {
    async fn initialize(
        &self,
        cx: &Context,
        params: InitializeParams,
    ) -> RpcResult<InitializeResult> {
        let encoding = PositionEncoding::negotiate(&params.capabilities);
        self.state.documents.set_encoding(encoding);
        self.state.session.start(cx, &params.capabilities);
        Ok(InitializeResult {
            capabilities: capabilities(encoding),
            server_info: Some(ServerInfo {
                name: "tally-lsp".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
        })
    }

    async fn initialized(&self, _params: InitializedParams) {
        if self.state.session.fetch_settings().await {
            self.republish().await;
        }
    }

    async fn shutdown(&self) -> RpcResult<()> {
        Ok(())
    }

    async fn exit(&self) {
        let code = self.state.lifecycle.exit_code();
        self.state.exit.0.send_replace(Some(code));
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let uri = params.text_document.uri.clone();
        let document = self.state.documents.open(params);
        self.analyze(uri, document).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri.clone();
        match self.state.documents.change(params) {
            Ok(document) => self.analyze(uri, document).await,
            Err(err) => {
                self.state
                    .session
                    .log(MessageType::WARNING, format!("didChange: {err}"))
                    .await
            }
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.state.documents.close(&params);
        lock(&self.state.analyzed).remove(&params.text_document.uri);
        // A closed document's problems leave the editor's list.
        self.state.session.clear(params.text_document.uri).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let changed = match self.state.session.can_fetch_settings() {
            true => self.state.session.fetch_settings().await,
            // Pushed in the notification: the `tally` section of it.
            false => {
                let section = params.settings.get("tally").cloned().unwrap_or_default();
                self.state.session.apply_settings(&section).await
            }
        };
        if changed {
            self.republish().await;
        }
    }

    async fn hover(&self, params: HoverParams) -> RpcResult<Option<Hover>> {
        let at = params.text_document_position_params;
        let Some(analyzed) = self.analyzed(&at.text_document.uri) else {
            return Ok(None);
        };
        Ok(analyzed.hover(at.position, &self.settings()))
    }

    async fn completion(&self, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let Some(analyzed) = self.analyzed(&at.text_document.uri) else {
            return Ok(None);
        };
        let items = analyzed.completion(at.position, &self.settings());
        Ok(Some(CompletionResponse::Array(items)))
    }

    async fn definition(
        &self,
        params: GotoDefinitionParams,
    ) -> RpcResult<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let Some(analyzed) = self.analyzed(&at.text_document.uri) else {
            return Ok(None);
        };
        let location = analyzed.definition(&at.text_document.uri, at.position);
        Ok(location.map(GotoDefinitionResponse::Scalar))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> RpcResult<Option<DocumentSymbolResponse>> {
        let Some(analyzed) = self.analyzed(&params.text_document.uri) else {
            return Ok(None);
        };
        Ok(Some(DocumentSymbolResponse::Nested(
            analyzed.symbols(&self.settings()),
        )))
    }

    async fn rename(&self, params: RenameParams) -> RpcResult<Option<WorkspaceEdit>> {
        let at = params.text_document_position;
        let Some(analyzed) = self.analyzed(&at.text_document.uri) else {
            return Ok(None);
        };
        analyzed
            .rename(&at.text_document.uri, at.position, &params.new_name)
            .map_err(|reason| ErrorObject::new(code::INVALID_PARAMS, reason))
    }

    async fn formatting(
        &self,
        params: DocumentFormattingParams,
    ) -> RpcResult<Option<Vec<TextEdit>>> {
        let Some(analyzed) = self.analyzed(&params.text_document.uri) else {
            return Ok(None);
        };
        Ok(Some(analyzed.formatting()))
    }

    async fn execute_command(
        &self,
        cx: &Context,
        params: ExecuteCommandParams,
    ) -> RpcResult<Option<serde_json::Value>> {
        self.evaluate(cx, params).await
    }

    async fn cancel_progress(&self, params: WorkDoneProgressCancelParams) {
        self.state.session.cancel_progress(&params.token);
    }

    async fn document_text(&self, params: TextDocumentIdentifier) -> RpcResult<DocumentText> {
        let document = self.state.documents.get(&params.uri).ok_or_else(|| {
            ErrorObject::new(
                code::INVALID_PARAMS,
                format!("{} is not open", params.uri.as_str()),
            )
        })?;
        Ok(DocumentText {
            uri: params.uri,
            version: document.version(),
            text: document.text().to_owned(),
        })
    }
}

/// What the server does, as `initialize` answers: exactly what is implemented.
fn capabilities(encoding: PositionEncoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![evaluate::EVALUATE.to_owned()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// The lock's value; every critical section here leaves its data whole.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
