//! Tally on tower-lsp-server 0.23 (tower-lsp's maintained successor), the
//! way its examples build a server: a `LanguageServer` impl whose state is
//! behind a lock, `Server::new(stdin, stdout, socket).serve(service)`, on a
//! current-thread runtime. It answers from the same `Core` as the others.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};
use typed_rpc_bench_lsp::{Core, Item, Problem, Span4};

struct Backend {
    client: Client,
    core: Core,
}

fn range([l0, c0, l1, c1]: Span4) -> Range {
    Range::new(Position::new(l0, c0), Position::new(l1, c1))
}

fn diagnostics(problems: Vec<Problem>) -> Vec<Diagnostic> {
    problems
        .into_iter()
        .map(|problem| Diagnostic {
            range: range(problem.range),
            severity: Some(match problem.severity {
                1 => DiagnosticSeverity::ERROR,
                _ => DiagnosticSeverity::WARNING,
            }),
            source: Some("tally".to_owned()),
            message: problem.message,
            tags: problem
                .unnecessary
                .then(|| vec![DiagnosticTag::UNNECESSARY]),
            ..Diagnostic::default()
        })
        .collect()
}

fn item(item: Item) -> CompletionItem {
    CompletionItem {
        label: item.label,
        kind: Some(match item.kind {
            6 => CompletionItemKind::VARIABLE,
            3 => CompletionItemKind::FUNCTION,
            _ => CompletionItemKind::KEYWORD,
        }),
        detail: item.detail,
        documentation: item.docs.map(Documentation::String),
        ..CompletionItem::default()
    }
}

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
        let edits = params
            .content_changes
            .into_iter()
            .map(|change| {
                let range = change
                    .range
                    .map(|r| [r.start.line, r.start.character, r.end.line, r.end.character]);
                (range, change.text)
            })
            .collect();
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
