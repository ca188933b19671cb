//! Tally on tower-lsp-server 0.23 (tower-lsp's maintained successor), the
//! way its examples build a server: a `LanguageServer` impl whose state is
//! behind a lock, `Server::new(stdin, stdout, socket).serve(service)`, on a
//! current-thread runtime. It answers from the same `Core` as the others.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};
use typed_rpc_bench_lsp::Core;

struct Backend {
    client: Client,
    core: Core,
}

typed_rpc_bench_lsp::conversions!(tower_lsp_server::ls_types);

impl LanguageServer for Backend {
    async fn initialize(&self, _: InitializeParams) -> Result<InitializeResult> {
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::INCREMENTAL,
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions::default()),
                ..ServerCapabilities::default()
            },
            ..InitializeResult::default()
        })
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let item = params.text_document;
        let problems = self.core.open(item.uri.as_str(), item.version, item.text);
        self.client
            .publish_diagnostics(item.uri, diagnostics(problems), Some(item.version))
            .await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let document = params.text_document;
        let edits = edits(params.content_changes);
        if let Some(problems) = self
            .core
            .change(document.uri.as_str(), document.version, edits)
        {
            self.client
                .publish_diagnostics(document.uri, diagnostics(problems), Some(document.version))
                .await;
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let hover = self.core.hover(
            at.text_document.uri.as_str(),
            at.position.line,
            at.position.character,
        );
        Ok(hover.map(|(value, span)| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(range(span)),
        }))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let items = self.core.completion(
            at.text_document.uri.as_str(),
            at.position.line,
            at.position.character,
        );
        Ok(Some(CompletionResponse::Array(
            items.into_iter().map(item).collect(),
        )))
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (service, socket) = LspService::new(|client| Backend {
            client,
            core: Core::default(),
        });
        Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
}
