//! Tally on async-lsp 0.2, the way its `server_builder` example builds a
//! server: a `Router` over the state (notifications run one after another
//! on it, requests as futures), the lifecycle, catch-unwind and concurrency
//! layers, and its non-blocking stdio pipes on a current-thread runtime. It
//! answers from the same `Core` as the others.

use std::ops::ControlFlow;
use std::sync::Arc;

use async_lsp::concurrency::ConcurrencyLayer;
use async_lsp::panic::CatchUnwindLayer;
use async_lsp::router::Router;
use async_lsp::server::LifecycleLayer;
use async_lsp::{ClientSocket, MainLoop};
use lsp_types_095::notification::{self, PublishDiagnostics};
use lsp_types_095::request;
use lsp_types_095::*;
use tower::ServiceBuilder;
use typed_rpc_bench_lsp::{Core, Problem};

struct State {
    client: ClientSocket,
    core: Arc<Core>,
}

typed_rpc_bench_lsp::conversions!(lsp_types_095);

fn publish(state: &State, uri: Url, problems: Vec<Problem>, version: i32) {
    let params = PublishDiagnosticsParams::new(uri, diagnostics(problems), Some(version));
    // The client gone is the main loop ending.
    let _ = state.client.notify::<PublishDiagnostics>(params);
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (server, _) = MainLoop::new_server(|client| {
            let mut router = Router::new(State {
                client,
                core: Arc::new(Core::default()),
            });
            router
                .request::<request::Initialize, _>(|_, _| async move {
                    Ok(InitializeResult {
                        capabilities: ServerCapabilities {
                            text_document_sync: Some(TextDocumentSyncCapability::Kind(
                                TextDocumentSyncKind::INCREMENTAL,
                            )),
                            hover_provider: Some(HoverProviderCapability::Simple(true)),
                            completion_provider: Some(CompletionOptions::default()),
                            ..ServerCapabilities::default()
                        },
                        server_info: None,
                    })
                })
                .request::<request::Shutdown, _>(|_, _| async move { Ok(()) })
                .request::<request::HoverRequest, _>(|state, params| {
                    let core = state.core.clone();
                    async move {
                        let at = params.text_document_position_params;
                        let hover = core.hover(
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
                })
                .request::<request::Completion, _>(|state, params| {
                    let core = state.core.clone();
                    async move {
                        let at = params.text_document_position;
                        let items = core.completion(
                            at.text_document.uri.as_str(),
                            at.position.line,
                            at.position.character,
                        );
                        Ok(Some(CompletionResponse::Array(
                            items.into_iter().map(item).collect(),
                        )))
                    }
                })
                .notification::<notification::Initialized>(|_, _| ControlFlow::Continue(()))
                .notification::<notification::Exit>(|_, _| ControlFlow::Break(Ok(())))
                .notification::<notification::DidOpenTextDocument>(|state, params| {
                    let item = params.text_document;
                    let problems = state.core.open(item.uri.as_str(), item.version, item.text);
                    publish(state, item.uri, problems, item.version);
                    ControlFlow::Continue(())
                })
                .notification::<notification::DidChangeTextDocument>(|state, params| {
                    let document = params.text_document;
                    let edits = edits(params.content_changes);
                    if let Some(problems) =
                        state
                            .core
                            .change(document.uri.as_str(), document.version, edits)
                    {
                        publish(state, document.uri, problems, document.version);
                    }
                    ControlFlow::Continue(())
                });
            ServiceBuilder::new()
                .layer(LifecycleLayer::default())
                .layer(CatchUnwindLayer::default())
                .layer(ConcurrencyLayer::default())
                .service(router)
        });
        let stdin = async_lsp::stdio::PipeStdin::lock_tokio().unwrap();
        let stdout = async_lsp::stdio::PipeStdout::lock_tokio().unwrap();
        server.run_buffered(stdin, stdout).await.unwrap();
    });
}
