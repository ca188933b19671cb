//! Interoperability: JSON-RPC peers that no one here wrote, against ours.
//!
//! - vscode-jsonrpc (npm) runs the calculator example as a child process and
//!   calls it over stdio with `Content-Length` framing;
//! - jayson's HTTP, TCP and WebSocket clients (npm; WebSocket over the `ws`
//!   package) call `calculator --http`, `--tcp` and `--ws`;
//! - jsonrpcclient with requests (PyPI) calls `calculator --http`;
//! - our generated client calls jayson's HTTP, TCP and WebSocket servers;
//! - httpx (PyPI) and the curl binary call a streaming method with their
//!   default `Accept` (`streams.rs`).
//!
//! The foreign side lives beside this file in `tests/interop/`: scripts
//! that print a JSON report, and the manifests that pin their packages. The
//! packages are installed by the tests with `typed-rpc-test-support` (once
//! per test binary, and only when missing or stale): `npm ci` into
//! `tests/interop/node_modules`, `pip install --target` into `<target
//! dir>/interop-python`. Node.js 20+ and Python 3 with pip must be on
//! `PATH`; without them these tests fail, saying so.

#[path = "../support/mod.rs"]
mod support;
#[path = "../support/waiter.rs"]
mod waiter;

mod streams;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use typed_rpc::client::{Batch, ClientExt, Params, Transport};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::{ErrorObject, Router, RpcResult, rpc};
use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::{cargo, paths, process};

use support::calculator_api::CalculatorClient;

/// How long a foreign script may run, or a server take to announce itself.
const PATIENCE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// The foreign side, provisioned once per test binary.

/// `tests/interop`, the foreign side.
fn interop_dir() -> PathBuf {
    paths::workspace_root().join("tests").join("interop")
}

/// Starts a server, ended when dropped, also when the test fails, and
/// waits for its `listening on <url>` line.
fn serve(mut command: Command) -> (ChildGuard, String) {
    ChildGuard::serve(&mut command, "listening on ", PATIENCE).unwrap()
}

/// The calculator example's binary.
fn calculator() -> PathBuf {
    cargo::example("typed-rpc", "calculator").unwrap()
}

/// Starts the calculator example with `args`; returns it and the URL it announced.
fn serve_calculator(args: &[&str]) -> (ChildGuard, String) {
    let mut command = Command::new(calculator());
    command.args(args);
    serve(command)
}

/// Runs a foreign script to its end and parses the JSON report it prints.
fn report(command: Command) -> Value {
    let what = format!("{command:?}");
    let output = process::run(command, PATIENCE).unwrap();
    let (stdout, stderr) = (&output.stdout, &output.stderr);
    assert!(
        output.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|err| panic!("{what} printed no JSON report ({err}):\n{stdout}\n{stderr}"))
}

/// `node tests/interop/<script> <args>`, with its packages installed.
fn node(script: &str, args: &[&str]) -> Command {
    let mut command = NodePackages::install(interop_dir()).unwrap().node(script);
    command.args(args);
    command
}

/// `python3 tests/interop/<script> <args>`, with its packages installed.
fn python(script: &str, args: &[&str]) -> Command {
    let packages =
        PythonPackages::install(interop_dir().join("requirements.txt"), "interop-python").unwrap();
    let mut command = packages.python(interop_dir().join(script));
    command.current_dir(interop_dir()).args(args);
    command
}

// ---------------------------------------------------------------------------
// Reading the reports.

/// The `-32602` error data our params decoding gives for a missing `subtrahend`.
fn missing_subtrahend() -> Value {
    json!({"param": "subtrahend", "position": 1, "reason": "missing required param"})
}

/// The reply to the request `id` among the `replies` to `batch`.
#[track_caller]
fn reply_to<'a>(replies: &'a [Value], id: &Value, batch: &Value) -> &'a Value {
    replies
        .iter()
        .find(|reply| &reply["id"] == id)
        .unwrap_or_else(|| panic!("no reply for {id}: {batch}"))
}

/// The result of a raw response, after checking it is a success for `id`.
#[track_caller]
fn result_for<'a>(response: &'a Value, id: &Value) -> &'a Value {
    outcome_for(response, id, "result", "error")
}

/// The error object of a raw response, after checking it is a failure for `id`.
#[track_caller]
fn error_for<'a>(response: &'a Value, id: &Value) -> &'a Value {
    outcome_for(response, id, "error", "result")
}

/// The member `wanted` of a raw response, after checking it is a 2.0
/// response for `id` without the member `other`.
#[track_caller]
fn outcome_for<'a>(response: &'a Value, id: &Value, wanted: &str, other: &str) -> &'a Value {
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(&response["id"], id, "the id is echoed: {response}");
    assert!(response.get(other).is_none(), "{response}");
    response
        .get(wanted)
        .unwrap_or_else(|| panic!("no {wanted}: {response}"))
}

/// The result of a jayson exchange: `{sent_id, reply}`.
#[track_caller]
fn jayson_result(exchange: &Value) -> &Value {
    result_for(&exchange["reply"], &exchange["sent_id"])
}

/// The error of a jayson exchange: `{sent_id, reply}`.
#[track_caller]
fn jayson_error(exchange: &Value) -> &Value {
    error_for(&exchange["reply"], &exchange["sent_id"])
}

// ---------------------------------------------------------------------------
// Foreign clients, our servers.

/// vscode-jsonrpc, the library under VS Code's language clients, spawns the
/// calculator and speaks `Content-Length`-framed JSON-RPC over its stdio.
#[test]
fn vscode_jsonrpc_calls_the_calculator_over_stdio_with_content_length() {
    let calculator = calculator();
    let report = report(node(
        "vscode_stdio.js",
        &[calculator.to_str().expect("a UTF-8 path")],
    ));

    assert_eq!(report["subtract_positional"], 19);
    assert_eq!(report["subtract_typed"], -19);
    assert_eq!(report["subtract_named"], 19);
    assert_eq!(report["sum"], 7);
    assert_eq!(report["get_data"], json!(["hello", 5]));
    let concurrent: Vec<Value> = (0..20).map(|i| json!(100 + i)).collect();
    assert_eq!(
        report["concurrent"],
        Value::Array(concurrent),
        "pipelined replies matched to their requests"
    );
    assert_eq!(report["total"], 10, "both notifications arrived");

    assert_eq!(report["unknown_method"]["code"], -32601);
    assert_eq!(report["missing_param"]["code"], -32602);
    assert_eq!(report["missing_param"]["data"], missing_subtrahend());
    let wrong_type = &report["wrong_type"];
    assert_eq!(wrong_type["code"], -32602);
    assert_eq!(wrong_type["data"]["param"], "minuend");
    assert_eq!(wrong_type["data"]["position"], 0);
    let reason = report["non_ascii"]["data"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("\"сорок два 🎉\""),
        "multi-byte text survives Content-Length framing both ways: {reason}"
    );
    let overflow = &report["overflow"];
    assert_eq!(
        (&overflow["code"], &overflow["message"]),
        (&json!(-32000), &json!("Overflow"))
    );
    assert_eq!(
        overflow["data"],
        json!([5_000_000_000_000_000_000_i64, 5_000_000_000_000_000_000_i64])
    );

    assert_eq!(
        report["exit"],
        json!({"code": 0, "signal": null}),
        "the server exits cleanly when stdin ends"
    );
}

/// jayson's HTTP client: its ids are UUID strings, its requests say
/// `application/json; charset=utf-8`, and it batches.
#[test]
fn jayson_calls_the_calculator_over_http() {
    let (_server, url) = serve_calculator(&["--http", "127.0.0.1:0"]);
    let report = report(node("jayson_client.js", &[&format!("{url}/")]));
    assert_eq!(report["transport"], "http");
    check_jayson_calls(&report);

    assert_eq!(
        report["notification_batch_reply"],
        Value::Null,
        "a batch of notifications gets no reply"
    );
    assert_eq!(report["total"], 21, "every notification arrived");
}

/// jayson's TCP client frames each message with a newline, as our
/// `--tcp` listener does; it opens a connection per call (or batch) and
/// half-closes it right after a notification.
#[test]
fn jayson_calls_the_calculator_over_tcp_lines() {
    let (_server, url) = serve_calculator(&["--tcp", "127.0.0.1:0"]);
    assert!(url.starts_with("tcp://"), "{url}");
    let report = report(node("jayson_client.js", &[&url]));
    assert_eq!(report["transport"], "tcp");
    check_jayson_calls(&report);
    assert_eq!(report["total"], 21, "every notification arrived");
}

/// jayson's WebSocket client (over the `ws` package) keeps one connection
/// for every call, matches replies by id, and ends with a close handshake.
#[test]
fn jayson_calls_the_calculator_over_websocket() {
    let (_server, url) = serve_calculator(&["--ws", "127.0.0.1:0"]);
    assert!(url.starts_with("ws://"), "{url}");
    let report = report(node("jayson_client.js", &[&format!("{url}/")]));
    assert_eq!(report["transport"], "ws");
    check_jayson_calls(&report);
    assert_eq!(report["total"], 21, "every notification arrived");
    assert_eq!(
        report["close"],
        json!({"code": 1000, "reason": "done"}),
        "our server echoed jayson's close frame"
    );
}

/// What the jayson client checks over every transport.
#[track_caller]
fn check_jayson_calls(report: &Value) {
    assert!(
        report["subtract_positional"]["sent_id"].is_string(),
        "jayson's ids are strings: {report}"
    );
    assert_eq!(jayson_result(&report["subtract_positional"]), 19);
    assert_eq!(jayson_result(&report["subtract_named"]), 19);
    assert_eq!(jayson_result(&report["sum"]), 7);
    assert_eq!(jayson_result(&report["get_data"]), &json!(["hello", 5]));
    assert_eq!(
        report["notification_reply"],
        Value::Null,
        "a notification gets no reply"
    );
    assert_eq!(jayson_error(&report["unknown_method"])["code"], -32601);
    let missing = jayson_error(&report["missing_param"]);
    assert_eq!(
        (&missing["code"], &missing["data"]),
        (&json!(-32602), &missing_subtrahend())
    );
    let overflow = jayson_error(&report["overflow"]);
    assert_eq!(overflow["code"], -32000);
    assert_eq!(
        overflow["data"],
        json!([5_000_000_000_000_000_000_i64, 5_000_000_000_000_000_000_i64])
    );

    let batch = &report["batch"];
    let ids = batch["sent_ids"].as_array().unwrap();
    assert!(ids[0].is_string() && ids[2].is_null(), "{batch}");
    let replies = batch["reply"]
        .as_array()
        .expect("a batch reply is an array");
    assert_eq!(replies.len(), 3, "no entry for the notification: {batch}");
    let reply_to = |id| reply_to(replies, id, batch);
    assert_eq!(result_for(reply_to(&ids[0]), &ids[0]), 30);
    assert_eq!(result_for(reply_to(&ids[1]), &ids[1]), &json!(["hello", 5]));
    let error = error_for(reply_to(&ids[3]), &ids[3]);
    assert_eq!(
        (&error["code"], &error["data"]),
        (&json!(-32602), &missing_subtrahend())
    );
}

/// The `member` (`ok` or `error`) of the jsonrpcclient call `name` in
/// `report`, after checking the reply echoed the id it was sent with.
#[track_caller]
fn jsonrpcclient_outcome<'a>(report: &'a Value, name: &str, member: &str) -> &'a Value {
    let outcome = &report[name];
    assert_eq!(outcome["id"], outcome["sent_id"], "{name}: {outcome}");
    outcome
        .get(member)
        .unwrap_or_else(|| panic!("{name}: no {member}: {outcome}"))
}

/// jsonrpcclient (PyPI) builds the messages and parses the replies,
/// requests carries them.
#[test]
fn jsonrpcclient_calls_the_calculator_over_http() {
    let (_server, url) = serve_calculator(&["--http", "127.0.0.1:0"]);
    let report = report(python("jsonrpcclient_http.py", &[&format!("{url}/")]));
    let ok = |name| jsonrpcclient_outcome(&report, name, "ok");
    assert_eq!(ok("subtract_positional"), 19);
    assert_eq!(ok("subtract_named"), 19);
    assert_eq!(ok("sum"), 7);
    assert_eq!(ok("get_data"), &json!(["hello", 5]));
    assert_eq!(report["notification"], json!({"status": 204, "body": ""}));
    let error = |name| jsonrpcclient_outcome(&report, name, "error");
    assert_eq!(error("unknown_method")["code"], -32601);
    let wrong_type = error("wrong_type");
    assert_eq!(wrong_type["code"], -32602);
    assert_eq!(wrong_type["data"]["param"], "subtrahend");
    let overflow = error("overflow");
    assert_eq!(overflow["code"], -32000);
    assert_eq!(overflow["data"], json!([i64::MAX, 1]), "i64::MAX exactly");

    let batch = &report["batch"];
    assert_eq!(batch["status"], 200);
    let ids = &batch["sent_ids"];
    let replies = batch["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 3, "no entry for the notification: {batch}");
    let reply_to = |id| reply_to(replies, id, batch);
    assert_eq!(reply_to(&ids[0])["ok"], 30);
    assert_eq!(reply_to(&ids[1])["ok"], json!(["hello", 5]));
    let missing = &reply_to(&ids[3])["error"];
    assert_eq!(
        (&missing["code"], &missing["data"]),
        (&json!(-32602), &missing_subtrahend())
    );
    assert_eq!(
        report["notification_batch"],
        json!({"status": 204, "body": ""})
    );
    assert_eq!(ok("total"), 21, "every notification arrived");
}

// ---------------------------------------------------------------------------
// Our client, a foreign server.

/// The calculator again, its client sending named params.
#[rpc(param_style = "named")]
pub trait NamedCalculator {
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

/// The application error `-32000 Overflow` with its operands, recovered
/// from whatever server sent it.
#[derive(Debug, PartialEq)]
struct Overflow(Vec<i64>);

impl TryFrom<ErrorObject> for Overflow {
    type Error = ErrorObject;

    fn try_from(err: ErrorObject) -> Result<Self, ErrorObject> {
        match err.data_as::<Vec<i64>>() {
            Some(Ok(operands)) if err.code() == -32000 => Ok(Overflow(operands)),
            _ => Err(err),
        }
    }
}

/// JavaScript's largest safe integer, past which the foreign calculators overflow.
const JS_MAX_SAFE: i64 = (1 << 53) - 1;

/// What the generated clients check against any foreign calculator: both
/// params styles, a notification, an application error with its data
/// recovered, and the server's own `-32601` and `-32602`.
async fn check_generated_client<T: Transport + Clone>(transport: &T) {
    let client = CalculatorClient::new(transport.clone());
    let named = NamedCalculatorClient::new(transport.clone());

    assert_eq!(client.subtract(42.into(), 23.into()).await.unwrap(), 19);
    assert_eq!(named.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(
        named.subtract(23, 42).await.unwrap(),
        -19,
        "by name, the order does not matter"
    );
    assert_eq!(client.sum(vec![1, 2, 4]).await.unwrap(), 7);
    assert_eq!(client.get_data().await.unwrap(), ("hello".to_owned(), 5));
    client.update(vec![1, 2, 3]).await.unwrap();
    assert_eq!(client.total().await.unwrap(), 6);

    let err = client.add(JS_MAX_SAFE.into(), 1.into()).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().message(), "Overflow");
    assert_eq!(
        err.into_app_error::<Overflow>().unwrap(),
        Overflow(vec![JS_MAX_SAFE, 1])
    );
    let err = named.add(1, JS_MAX_SAFE).await.unwrap_err();
    assert_eq!(
        err.into_app_error::<Overflow>().unwrap(),
        Overflow(vec![1, JS_MAX_SAFE])
    );

    support::check_caller_mistakes(transport).await;
}

/// A batch through `typed_rpc::client::Batch`: positional and named params,
/// a notification, and two failures. Adds 4 to the total.
async fn check_batch<T: Transport>(transport: &T) {
    let mut batch = Batch::new();
    let positional = batch.request::<i64>("subtract", Some(Params::from_value(&(42, 23)).unwrap()));
    let by_name = batch.request::<i64>(
        "subtract",
        Some(Params::from_value(&json!({"subtrahend": 42, "minuend": 23})).unwrap()),
    );
    let sum = batch.request::<i64>("sum", Some(Params::from_value(&[10, 20]).unwrap()));
    batch.notify("update", Some(Params::from_value(&[4]).unwrap()));
    let data = batch.request::<(String, i64)>("get_data", None);
    let missing = batch.request::<i64>("multiply", None);
    let overflow = batch.request::<i64>(
        "add",
        Some(Params::from_value(&[JS_MAX_SAFE, JS_MAX_SAFE]).unwrap()),
    );
    let replies = transport.send_batch(&batch).await.unwrap();
    assert_eq!(replies.get(&positional).unwrap(), 19);
    assert_eq!(replies.get(&by_name).unwrap(), -19);
    assert_eq!(replies.get(&sum).unwrap(), 30);
    assert_eq!(replies.get(&data).unwrap(), ("hello".to_owned(), 5));
    let err = replies.get(&missing).unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32601);
    let err = replies.get(&overflow).unwrap_err();
    assert_eq!(
        err.into_app_error::<Overflow>().unwrap(),
        Overflow(vec![JS_MAX_SAFE, JS_MAX_SAFE])
    );
}

/// The generated client over HTTP against a jayson server.
#[tokio::test]
async fn generated_client_calls_a_jayson_http_server() {
    // Node closes idle kept-alive connections after 100 ms here.
    let (_server, url) = serve(node("jayson_server.js", &["http", "100"]));
    let http = HttpClient::new(&format!("{url}/")).unwrap();
    check_generated_client(&http).await;
    check_batch(&http).await;

    // Only notifications: jayson answers 204, there is nothing to match.
    let mut notifications = Batch::new();
    notifications.notify("update", Some(Params::from_value(&[5]).unwrap()));
    notifications.notify("update", Some(Params::from_value(&[6]).unwrap()));
    http.send_batch(&notifications).await.unwrap();
    let client = CalculatorClient::new(http);
    assert_eq!(client.total().await.unwrap(), 6 + 4 + 5 + 6);

    // The server closed the pooled connection while it sat idle: the next
    // call must not trip over it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(client.subtract(2.into(), 1.into()).await.unwrap(), 1);
}

/// The generated client over newline-delimited TCP against a jayson server,
/// many calls on one connection.
#[tokio::test]
async fn generated_client_calls_a_jayson_tcp_server() {
    let (_server, url) = serve(node("jayson_server.js", &["tcp"]));
    let addr = url.strip_prefix("tcp://").expect("a tcp:// address");
    let connection = StreamConnector::new(Framing::Lines)
        .connect_tcp(addr)
        .await
        .unwrap()
        .with_timeout(PATIENCE);
    check_generated_client(&connection).await;
    check_batch(&connection).await;
    let client = CalculatorClient::new(connection);
    assert_eq!(client.total().await.unwrap(), 6 + 4);
}

/// The generated client over WebSocket against jayson's WebSocket server
/// (the `ws` package): one connection, text frames both ways.
#[tokio::test]
async fn generated_client_calls_a_jayson_websocket_server() {
    let (_server, url) = serve(node("jayson_server.js", &["ws"]));
    assert!(url.starts_with("ws://"), "{url}");
    let connection = WsConnector::new()
        .connect(&format!("{url}/"))
        .await
        .unwrap()
        .with_timeout(PATIENCE);
    check_generated_client(&connection).await;
    check_batch(&connection).await;
    let client = CalculatorClient::new(connection.clone());
    assert_eq!(client.total().await.unwrap(), 6 + 4);
    drop(client);
    connection.close();
    tokio::time::timeout(PATIENCE, connection.closed())
        .await
        .expect("the connection closes");
}

/// What a language server asks of its editor.
#[rpc]
pub trait Editor {
    #[method(name = "workspace/configuration")]
    async fn configuration(&self, section: String) -> RpcResult<String>;

    #[notification(name = "window/logMessage")]
    async fn log_message(&self, r#type: u8, message: String);
}

/// Our side of the editor: answers with a style, keeps the log.
#[derive(Clone, Default)]
struct EditorLog(Arc<Mutex<Vec<String>>>);

impl Editor for EditorLog {
    async fn configuration(&self, section: String) -> RpcResult<String> {
        Ok(format!("{section}=compact"))
    }

    async fn log_message(&self, _type: u8, message: String) {
        self.0.lock().unwrap().push(message);
    }
}

/// The generated client spawns a vscode-jsonrpc server, as an editor spawns
/// a language server, and talks `Content-Length` framing over its stdio;
/// the server calls back into the client's own handlers.
#[tokio::test]
async fn generated_client_spawns_a_vscode_jsonrpc_server() {
    let editor = EditorLog::default();
    let connector = StreamConnector::new(Framing::ContentLength)
        .handlers(Router::new(editor.clone().into_service()));
    let mut command = tokio::process::Command::from(node("vscode_server.js", &[]));
    // Killed when dropped, also when the test fails.
    let child = connector.spawn(&mut command).unwrap();
    let connection = child.connection().clone().with_timeout(PATIENCE);
    check_generated_client(&connection).await;

    // Multi-byte text both ways checks that Content-Length counts bytes.
    let described: String = connection
        .call("describe", Some(Params::from_value(&["hövër 🦀"]).unwrap()))
        .await
        .unwrap();
    assert_eq!(
        described, "hövër 🦀 (style=compact)",
        "the server's call to the client was answered"
    );
    // The server logged before it answered, but our connection runs each
    // incoming notification as a task of its own: wait for it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while editor.0.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(*editor.0.lock().unwrap(), ["describing hövër 🦀"]);

    drop(connection);
    let status = child.close().await.unwrap();
    assert!(
        status.success(),
        "the server exits when stdin ends: {status}"
    );
}

/// vscode-jsonrpc cancels a call with a `CancellationTokenSource` over
/// stdio (the test serves the script's stdin and stdout, with the LSP
/// preset): `$/cancelRequest` drops the handler, and the call is answered
/// `-32800`, which is what settles it on vscode-jsonrpc's side.
#[tokio::test]
async fn vscode_jsonrpc_cancels_a_call_and_the_handler_is_dropped() {
    let waits = waiter::Waits::default();
    let router = Router::builder()
        .service(waiter::Waiter::into_service(waits.clone()))
        .cancel_notification(typed_rpc::CancelPolicy::lsp())
        .build()
        .unwrap();
    let connector = StreamConnector::new(Framing::ContentLength).handlers(router);
    let mut command = tokio::process::Command::from(node("vscode_cancel.js", &[]));
    let child = connector.spawn(&mut command).unwrap();

    let report = waits.probe.report().await.expect("the script's report");
    assert_eq!(report["started"], 1, "{report}");
    assert_eq!(
        report["cancelled"],
        json!({"code": -32800, "message": "Request cancelled", "data": null}),
        "{report}"
    );
    assert_eq!(report["dropped"], 1, "{report}");
    assert_eq!(report["answered"], "done", "{report}");
    assert_eq!(report["ping"], "pong", "{report}");
    assert_eq!(
        (waits.probe.dropped(), waits.probe.finished()),
        (1, 1),
        "the cancelled handler was dropped, the answered one returned"
    );
    let status = child.close().await.unwrap();
    assert!(status.success(), "the script exited cleanly: {status}");
}
