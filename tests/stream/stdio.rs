//! stdio end to end: the example servers run as child processes, spoken to
//! through their stdin and stdout by the generated clients, with the server
//! calling back into its client (LSP-style) on the same pipes.

use crate::support::calculator_api::CalculatorClient;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::lsp_api::{Editor, HoverParams, LanguageClient, LogMessage};
use tokio::process::Command;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::{ErrorObject, Router, RpcResult};
use typed_rpc_test_support::cargo;

/// The binary of this crate's example `name`, built on first use.
fn example(name: &str) -> std::path::PathBuf {
    cargo::example("typed-rpc", name).unwrap()
}

#[derive(Default)]
struct EditorState {
    logs: Mutex<Vec<LogMessage>>,
    asked: Mutex<Vec<String>>,
}

struct EditorHandlers(Arc<EditorState>);

impl Editor for EditorHandlers {
    async fn log_message(&self, params: LogMessage) {
        self.0.logs.lock().unwrap().push(params);
    }

    async fn configuration(&self, section: String) -> RpcResult<serde_json::Value> {
        self.0.asked.lock().unwrap().push(section);
        Ok(serde_json::json!({ "style": "loud" }))
    }
}

#[tokio::test]
async fn a_language_server_on_stdio_calls_back_into_its_editor() {
    let state = Arc::new(EditorState::default());
    let handlers = Router::new(EditorHandlers(state.clone()).into_service());
    let child = StreamConnector::new(Framing::ContentLength)
        .handlers(handlers)
        .spawn(&mut Command::new(example("lsp_server")))
        .expect("the example starts");
    let server = LanguageClient::new(
        child
            .connection()
            .clone()
            .with_timeout(Duration::from_secs(10)),
    );

    let hover_main = || {
        server.hover(HoverParams {
            word: "main".into(),
        })
    };
    let err = hover_main().await.unwrap_err();
    assert_eq!(
        err.rpc_error().map(ErrorObject::code),
        Some(-32002),
        "not initialized yet"
    );

    let capabilities = server
        .initialize(serde_json::json!({ "processId": null }))
        .await
        .unwrap();
    assert_eq!(capabilities["capabilities"]["hoverProvider"], true);
    let hover = hover_main().await.unwrap();
    assert_eq!(
        hover, "**MAIN**",
        "the editor's configuration shaped the answer"
    );
    assert_eq!(*state.asked.lock().unwrap(), ["hover"]);
    assert_eq!(
        *state.logs.lock().unwrap(),
        [LogMessage {
            kind: 3,
            message: "hover on `main`".into()
        }],
        "the log line sent before the answer has been handled by the time the call returns"
    );

    server.shutdown().await.unwrap();
    drop(server);
    let status = child.close().await.unwrap();
    assert!(
        status.success(),
        "the server exits cleanly when its stdin closes: {status}"
    );
}

#[tokio::test]
async fn the_calculator_serves_stdio_with_either_framing() {
    for (framing, flag) in [
        (Framing::Lines, "lines"),
        (Framing::ContentLength, "content-length"),
    ] {
        let mut command = Command::new(example("calculator"));
        command.args(["--stdio", "--framing", flag]);
        let child = StreamConnector::new(framing).spawn(&mut command).unwrap();
        let calc = CalculatorClient::new(
            child
                .connection()
                .clone()
                .with_timeout(Duration::from_secs(10)),
        );
        assert_eq!(
            calc.subtract(42.into(), 23.into()).await.unwrap(),
            19,
            "{flag}"
        );
        assert_eq!(calc.sum(vec![1, 2, 4]).await.unwrap(), 7, "{flag}");
        calc.update(vec![5, 6]).await.unwrap();
        assert_eq!(
            calc.total().await.unwrap(),
            11,
            "{flag}: the notification ran first"
        );
        drop(calc);
        assert!(child.close().await.unwrap().success(), "{flag}");
    }
}
