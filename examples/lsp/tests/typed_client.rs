//! tally-lsp driven by this crate's typed client: `LanguageServerClient`
//! over the spawned server's stdio, with the editor's side served by an
//! `Editor` implementation, so the same traits are also an LSP client
//! library. Then the load: hundreds of incremental edits interleaved with
//! hovers, after which the server holds exactly the client's text, every
//! hover was answered (or superseded, `-32801`), and diagnostics came
//! version after version.

use std::sync::Arc;
use std::time::Duration;

use lsp_types::{
    ClientCapabilities, ConfigurationParams, DidChangeTextDocumentParams,
    DidOpenTextDocumentParams, DocumentSymbolParams, DocumentSymbolResponse, ExecuteCommandParams,
    GeneralClientCapabilities, HoverContents, HoverParams, InitializeParams, InitializedParams,
    LogMessageParams, NumberOrString, PartialResultParams, Position, PositionEncodingKind,
    ProgressParams, ProgressParamsValue, PublishDiagnosticsParams, Range, ShowMessageParams,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    TextDocumentPositionParams, Uri, VersionedTextDocumentIdentifier, WindowClientCapabilities,
    WorkDoneProgress, WorkDoneProgressCreateParams, WorkDoneProgressParams,
    WorkspaceClientCapabilities,
};
use serde_json::json;
use tokio::process::Command;
use tokio::sync::watch;
use typed_rpc::transport::Connection;
use typed_rpc::transport::stream::{ChildProcess, Framing, StreamConnector};
use typed_rpc::{ErrorObject, Router, RpcResult};
use typed_rpc_lsp::protocol::{Editor, LanguageServerClient};
use typed_rpc_lsp::{Document, PositionEncoding};

const PATIENCE: Duration = Duration::from_secs(20);

/// What the editor saw, in order.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Log(String),
    Diagnostics(Option<i32>, Vec<String>),
    Configuration,
    Created(NumberOrString),
    Progress(String),
}

/// The editor's side, serving what the server asks.
#[derive(Clone)]
struct TestEditor {
    seen: Arc<watch::Sender<Vec<Seen>>>,
}

impl TestEditor {
    fn new() -> Self {
        TestEditor {
            seen: Arc::new(watch::Sender::new(Vec::new())),
        }
    }

    fn see(&self, seen: Seen) {
        self.seen.send_modify(|all| all.push(seen));
    }

    /// Waits until something seen matches.
    async fn until(&self, matches: impl Fn(&Seen) -> bool) -> Seen {
        let mut seen = self.seen.subscribe();
        let found = tokio::time::timeout(PATIENCE, seen.wait_for(|all| all.iter().any(&matches)))
            .await
            .expect("seen within the patience")
            .unwrap();
        found.iter().find(|s| matches(s)).unwrap().clone()
    }

    fn all(&self) -> Vec<Seen> {
        self.seen.borrow().clone()
    }
}

impl Editor for TestEditor {
    async fn log_message(&self, params: LogMessageParams) {
        self.see(Seen::Log(params.message));
    }

    async fn show_message(&self, params: ShowMessageParams) {
        self.see(Seen::Log(params.message));
    }

    async fn publish_diagnostics(&self, params: PublishDiagnosticsParams) {
        let messages = params.diagnostics.into_iter().map(|d| d.message).collect();
        self.see(Seen::Diagnostics(params.version, messages));
    }

    async fn configuration(
        &self,
        params: ConfigurationParams,
    ) -> RpcResult<Vec<serde_json::Value>> {
        self.see(Seen::Configuration);
        Ok(params
            .items
            .iter()
            .map(|_| json!({"precision": 3}))
            .collect())
    }

    async fn create_progress(&self, params: WorkDoneProgressCreateParams) -> RpcResult<()> {
        self.see(Seen::Created(params.token));
        Ok(())
    }

    async fn progress(&self, params: ProgressParams) {
        let ProgressParamsValue::WorkDone(value) = params.value;
        let step = match value {
            WorkDoneProgress::Begin(begin) => format!("begin {}", begin.title),
            WorkDoneProgress::Report(report) => {
                format!("report {}", report.percentage.unwrap_or(0))
            }
            WorkDoneProgress::End(end) => format!("end {}", end.message.unwrap_or_default()),
        };
        self.see(Seen::Progress(step));
    }
}

fn uri() -> Uri {
    "file:///load.tally".parse().unwrap()
}

fn spawn(editor: &TestEditor) -> (ChildProcess, LanguageServerClient<Connection>) {
    let child = StreamConnector::new(Framing::ContentLength)
        .handlers(Router::new(editor.clone().into_service()))
        .spawn(Command::new(env!("CARGO_BIN_EXE_tally-lsp")).arg("--stdio"))
        .expect("tally-lsp starts");
    let server = LanguageServerClient::new(
        child
            .connection()
            .clone()
            .with_timeout(PATIENCE)
            .with_cancel_notification(typed_rpc::CancelPolicy::lsp()),
    );
    (child, server)
}

fn initialize_params(encoding: Option<PositionEncodingKind>) -> InitializeParams {
    InitializeParams {
        capabilities: ClientCapabilities {
            general: encoding.map(|encoding| GeneralClientCapabilities {
                position_encodings: Some(vec![encoding]),
                ..Default::default()
            }),
            workspace: Some(WorkspaceClientCapabilities {
                configuration: Some(true),
                ..Default::default()
            }),
            window: Some(WindowClientCapabilities {
                work_done_progress: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn at(line: u32, character: u32) -> TextDocumentPositionParams {
    TextDocumentPositionParams::new(
        TextDocumentIdentifier::new(uri()),
        Position::new(line, character),
    )
}

fn hover_params(position: TextDocumentPositionParams) -> HoverParams {
    HoverParams {
        text_document_position_params: position,
        work_done_progress_params: WorkDoneProgressParams::default(),
    }
}

async fn open(server: &LanguageServerClient<Connection>, text: &str) {
    let item = TextDocumentItem::new(uri(), "tally".into(), 1, text.into());
    server
        .did_open(DidOpenTextDocumentParams {
            text_document: item,
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn our_typed_client_drives_a_whole_session() {
    let editor = TestEditor::new();
    let (child, server) = spawn(&editor);

    let early = server.hover(hover_params(at(0, 0))).await.unwrap_err();
    assert_eq!(early.rpc_error().map(ErrorObject::code), Some(-32002));

    let init = server.initialize(initialize_params(None)).await.unwrap();
    assert_eq!(
        init.capabilities.position_encoding,
        Some(PositionEncodingKind::UTF16)
    );
    server.initialized(InitializedParams {}).await.unwrap();
    editor
        .until(|s| matches!(s, Seen::Log(line) if line.starts_with("settings: precision 3")))
        .await;

    open(&server, "let 🍎 = 10 / 3\nlet y = 🍎 * 2\ny\n").await;
    let diagnostics = editor
        .until(|s| matches!(s, Seen::Diagnostics(Some(1), _)))
        .await;
    assert_eq!(diagnostics, Seen::Diagnostics(Some(1), Vec::new()));

    // `🍎` on line 1 starts at UTF-16 unit 8.
    let hover = server
        .hover(hover_params(at(1, 8)))
        .await
        .unwrap()
        .expect("a hover");
    let HoverContents::Markup(markup) = hover.contents else {
        panic!("markdown")
    };
    assert!(
        markup.value.ends_with("= 3.333"),
        "precision 3 from the editor: {}",
        markup.value
    );
    assert_eq!(
        hover.range,
        Some(Range::new(Position::new(1, 8), Position::new(1, 10)))
    );

    let symbols = server
        .document_symbol(DocumentSymbolParams {
            text_document: TextDocumentIdentifier::new(uri()),
            work_done_progress_params: WorkDoneProgressParams::default(),
            partial_result_params: PartialResultParams::default(),
        })
        .await
        .unwrap();
    let Some(DocumentSymbolResponse::Nested(symbols)) = symbols else {
        panic!("nested symbols")
    };
    let names: Vec<_> = symbols.iter().map(|symbol| symbol.name.as_str()).collect();
    assert_eq!(names, ["🍎", "y"]);

    // The slow command, given up on: our client sends `$/cancelRequest`
    // when the call is dropped, and the server ends its progress.
    let evaluate = ExecuteCommandParams {
        command: "tally.evaluate".into(),
        arguments: vec![json!({"delayMs": 5000})],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let call = tokio::spawn({
        let server = server.clone();
        async move { server.execute_command(evaluate).await }
    });
    editor
        .until(|s| matches!(s, Seen::Progress(step) if step.starts_with("begin")))
        .await;
    call.abort();
    editor
        .until(|s| matches!(s, Seen::Progress(step) if step == "end cancelled"))
        .await;
    assert!(editor.all().iter().any(|s| matches!(s, Seen::Created(_))));

    server.shutdown().await.unwrap();
    server.exit().await.unwrap();
    drop(server);
    let status = child.close().await.unwrap();
    assert_eq!(status.code(), Some(0), "exit after shutdown");
}

/// A line of text to edit; each edit touches it at a place that moves.
const LOAD_TEXT: &str = "let 価格 = 1\nlet 🍎 = 価格 + 1 # 😀\n🍎 * 2\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_interleaved_edits_and_hovers_leave_the_server_holding_the_clients_text() {
    let editor = TestEditor::new();
    let (child, server) = spawn(&editor);
    let utf8 = Some(PositionEncodingKind::UTF8);
    let init = server.initialize(initialize_params(utf8)).await.unwrap();
    assert_eq!(
        init.capabilities.position_encoding,
        Some(PositionEncodingKind::UTF8)
    );
    server.initialized(InitializedParams {}).await.unwrap();
    open(&server, LOAD_TEXT).await;

    // The client's copy, edited the same way, positions in UTF-8.
    let mut mine = Document::new(LOAD_TEXT, 1, PositionEncoding::Utf8);
    let mut hovers = Vec::new();
    const EDITS: i32 = 300;
    for version in 2..=EDITS + 1 {
        // Grow the comment on line 1 with multi-byte text, and now and then
        // change the value on line 0.
        let line = mine.line(1).to_owned();
        let end = Position::new(1, line.len() as u32);
        let mut changes = vec![TextDocumentContentChangeEvent {
            range: Some(Range::new(end, end)),
            range_length: None,
            text: ["é", "価", "😀", "x"][version as usize % 4].to_owned(),
        }];
        if version % 10 == 0 {
            let value_at = mine.line(0).rfind(' ').unwrap() as u32 + 1;
            let value_end = mine.line(0).len() as u32;
            changes.push(TextDocumentContentChangeEvent {
                range: Some(Range::new(
                    Position::new(0, value_at),
                    Position::new(0, value_end),
                )),
                range_length: None,
                text: version.to_string(),
            });
        }
        mine.apply(&changes, version);
        let params = DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier::new(uri(), version),
            content_changes: changes,
        };
        server.did_change(params).await.unwrap();
        // A hover on `🍎`'s use in the last line, in flight across the next edits.
        let server = server.clone();
        hovers.push(tokio::spawn(async move {
            server.hover(hover_params(at(2, 0))).await
        }));
    }
    let (mut answered, mut superseded) = (0, 0);
    for hover in hovers {
        match hover.await.unwrap() {
            Ok(Some(hover)) => {
                let HoverContents::Markup(markup) = hover.contents else {
                    panic!("markdown")
                };
                assert!(
                    markup.value.contains("let 🍎 = 価格 + 1"),
                    "{}",
                    markup.value
                );
                answered += 1;
            }
            Ok(None) => panic!("a hover on a name is never empty"),
            Err(err) => {
                assert_eq!(
                    err.rpc_error().map(ErrorObject::code),
                    Some(-32801),
                    "{err}"
                );
                superseded += 1;
            }
        }
    }
    assert_eq!(answered + superseded, EDITS);
    eprintln!("{answered} hovers answered, {superseded} superseded");

    let held = server
        .document_text(TextDocumentIdentifier::new(uri()))
        .await
        .unwrap();
    assert_eq!(held.version, EDITS + 1);
    assert_eq!(
        held.text,
        mine.text(),
        "the server applied every edit in order"
    );

    // Diagnostics came for each version, in order.
    editor
        .until(|s| matches!(s, Seen::Diagnostics(Some(v), _) if *v == EDITS + 1))
        .await;
    let versions: Vec<i32> = editor
        .all()
        .into_iter()
        .filter_map(|seen| match seen {
            Seen::Diagnostics(version, _) => version,
            _ => None,
        })
        .collect();
    assert_eq!(versions, (1..=EDITS + 1).collect::<Vec<_>>());

    server.shutdown().await.unwrap();
    server.exit().await.unwrap();
    drop(server);
    assert_eq!(child.close().await.unwrap().code(), Some(0));
}
