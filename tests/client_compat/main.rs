//! Talking to servers nobody here wrote: a JSON-RPC 1.0-style server in
//! Python's standard library (`legacy_server.py`), called by the typed
//! client in its 1.0 mode, and the null member beside a 2.0 result read by
//! the default client.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use typed_rpc::client::{Batch, ClientError, ClientExt, Params, Transport};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::{RpcResult, rpc};

/// The legacy server's API, as a user would declare it: 1.0 knows only
/// positional params.
#[rpc(param_style = "positional")]
trait Legacy {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "fail")]
    async fn fail(&self) -> RpcResult<Value>;

    #[method(name = "last_request")]
    async fn last_request(&self) -> RpcResult<Value>;

    #[method(name = "notified")]
    async fn notified(&self) -> RpcResult<Vec<String>>;

    #[notification(name = "ping")]
    async fn ping(&self);
}

/// The Python server, killed when dropped, and the port it listens on.
struct LegacyServer {
    _child: Child,
    port: u16,
}

impl LegacyServer {
    async fn start() -> LegacyServer {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/client_compat/legacy_server.py"
        );
        let mut child = Command::new("python3")
            .arg(script)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python3 runs");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.unwrap();
        let port = line.trim().parse().expect("the server prints its port");
        LegacyServer {
            _child: child,
            port,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

#[tokio::test]
async fn the_1_0_mode_calls_a_1_0_server() {
    let server = LegacyServer::start().await;
    let http = HttpClient::builder(&server.url("/"))
        .jsonrpc_1_0()
        .build()
        .unwrap();
    let client = LegacyClient::new(http.clone());

    assert_eq!(client.add(2, 3).await.unwrap(), 5);
    let sent = client.last_request().await.unwrap();
    assert_eq!(sent["jsonrpc"], "1.0");
    assert_eq!(sent["method"], "add");
    assert_eq!(sent["params"], json!([2, 3]));
    assert!(sent["id"].is_u64());

    let err = client.fail().await.unwrap_err();
    let error = err.rpc_error().expect("the server's error object");
    assert_eq!((error.code(), error.message()), (-5, "Block not found"));

    // A call without params still sends `params: []`, as 1.0 requires.
    client.notified().await.unwrap();
    assert_eq!(client.last_request().await.unwrap()["params"], json!([]));

    // A notification has a null id, and the server answers nothing.
    client.ping().await.unwrap();
    assert_eq!(client.notified().await.unwrap(), ["ping"]);

    // 1.0 has no batches: refused before anything is sent.
    let mut batch = Batch::new();
    let _sum = batch.request::<i64>("add", Some(Params::from_value(&(1, 1)).unwrap()));
    let err = http.send_batch(&batch).await.unwrap_err();
    assert!(matches!(err, ClientError::Transport(_)), "{err:?}");
}

#[tokio::test]
async fn the_default_client_refuses_1_0_replies() {
    let server = LegacyServer::start().await;
    let client = HttpClient::new(&server.url("/")).unwrap();
    let err = client
        .call::<i64>("add", Some(Params::from_value(&(2, 3)).unwrap()))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Decode(_)), "{err:?}");
}

#[tokio::test]
async fn the_default_client_reads_a_null_error_beside_a_2_0_result() {
    let server = LegacyServer::start().await;
    let client = LegacyClient::new(HttpClient::new(&server.url("/v2")).unwrap());
    assert_eq!(client.add(40, 2).await.unwrap(), 42);
    // And a null result beside an error.
    let err = client.fail().await.unwrap_err();
    assert_eq!(err.rpc_error().map(|e| e.code()), Some(-5));
}
