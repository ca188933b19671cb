//! Several listeners behind one handle: a `ServerGroup` of an HTTP port
//! (with WebSocket on it) and a TCP port, stopped by one graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use typed_rpc::client::ClientExt;
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Server, ServerGroup};
use typed_rpc::{Router, RpcResult, rpc};

/// How long a slow call takes: long enough that the shutdown surely begins
/// while it is in flight.
const SLOW: Duration = Duration::from_millis(600);

/// How long anything here may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(10);

#[rpc]
trait Slow {
    /// Answers `tag` after [`SLOW`], having said that it started.
    #[method(name = "slow")]
    async fn slow(&self, tag: String) -> RpcResult<String>;

    /// Adds a permit to `noted` after [`SLOW`].
    #[notification(name = "note")]
    async fn note(&self, tag: String);
}

/// Adds a permit to `started` as each slow call begins, and one to
/// `noted` as each note ends.
struct Sleeper {
    started: Arc<Semaphore>,
    noted: Arc<Semaphore>,
}

impl Default for Sleeper {
    fn default() -> Self {
        Sleeper {
            started: Arc::new(Semaphore::new(0)),
            noted: Arc::new(Semaphore::new(0)),
        }
    }
}

impl Slow for Sleeper {
    async fn slow(&self, tag: String) -> RpcResult<String> {
        self.started.add_permits(1);
        tokio::time::sleep(SLOW).await;
        Ok(tag)
    }

    async fn note(&self, _tag: String) {
        tokio::time::sleep(SLOW).await;
        self.noted.add_permits(1);
    }
}

fn slow_params(tag: &str) -> Option<typed_rpc::client::Params> {
    Some(typed_rpc::client::Params::from_value(&(tag,)).unwrap())
}

/// Whether a fresh TCP connection to `addr` gets an answer to a line of
/// JSON-RPC: refused or closed unanswered is `false`.
async fn tcp_answers(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return false;
    };
    let request = b"{\"jsonrpc\":\"2.0\",\"method\":\"slow\",\"params\":[\"late\"],\"id\":1}\n";
    if stream.write_all(request).await.is_err() {
        return false;
    }
    let mut line = String::new();
    let mut stream = BufReader::new(stream);
    let read = stream.read_line(&mut line);
    matches!(tokio::time::timeout(PATIENCE, read).await, Ok(Ok(n)) if n > 0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shutdown_drains_and_closes_http_websocket_and_tcp_together() {
    let started = Arc::new(Semaphore::new(0));
    let server = Server::new(Router::new(SlowService::new(Sleeper {
        started: started.clone(),
        ..Sleeper::default()
    })));
    let group = ServerGroup::new()
        .with(server.serve_http("127.0.0.1:0").await.unwrap())
        .with(
            server
                .serve_tcp("127.0.0.1:0", Framing::Lines)
                .await
                .unwrap(),
        );
    let addrs: Vec<SocketAddr> = group.local_addrs().collect();
    let (http_addr, tcp_addr) = (addrs[0], addrs[1]);
    let http_url = format!("http://{http_addr}/");
    let ws_url = format!("ws://{http_addr}/");

    let http = HttpClient::new(&http_url).unwrap();
    let ws = WsConnector::new().connect(&ws_url).await.unwrap();
    let tcp = StreamConnector::new(Framing::Lines)
        .connect_tcp(tcp_addr)
        .await
        .unwrap();
    let calls = [
        tokio::spawn(async move { http.call::<String>("slow", slow_params("http")).await }),
        tokio::spawn(async move { ws.call::<String>("slow", slow_params("ws")).await }),
        tokio::spawn(async move { tcp.call::<String>("slow", slow_params("tcp")).await }),
    ];
    // All three are in their handlers before the shutdown begins.
    let all_started = started.acquire_many(3);
    tokio::time::timeout(PATIENCE, all_started)
        .await
        .expect("the slow calls started")
        .unwrap()
        .forget();

    let shutdown = tokio::spawn(group.shutdown());
    // The shutdown has begun once its task has run; the slow calls are
    // still in flight (each has most of `SLOW` to go).
    tokio::time::sleep(Duration::from_millis(100)).await;

    let late_http = HttpClient::builder(&http_url)
        .timeout(PATIENCE)
        .build()
        .unwrap();
    assert!(
        late_http
            .call::<String>("slow", slow_params("late"))
            .await
            .is_err(),
        "the HTTP listener refuses a new connection once the shutdown began"
    );
    assert!(
        WsConnector::new().connect(&ws_url).await.is_err(),
        "the WebSocket handshake is refused once the shutdown began"
    );
    assert!(
        !tcp_answers(tcp_addr).await,
        "the TCP listener refuses a new connection once the shutdown began"
    );

    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap().expect("the call in flight is answered"));
    }
    assert_eq!(answers, ["http", "ws", "tcp"]);
    let in_time = tokio::time::timeout(PATIENCE, shutdown)
        .await
        .unwrap()
        .unwrap();
    assert!(
        in_time,
        "every listener finished within its shutdown timeout"
    );
}

#[tokio::test]
async fn an_empty_group_shuts_down_at_once() {
    let group = ServerGroup::new();
    assert_eq!(group.local_addrs().count(), 0);
    assert!(group.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_runs_to_its_end_when_its_sender_closes_at_once() {
    let sleeper = Sleeper::default();
    let noted = sleeper.noted.clone();
    let server = Server::new(Router::new(SlowService::new(sleeper)));
    let handle = server.serve_http("127.0.0.1:0").await.unwrap();
    let ws_url = format!("ws://{}/", handle.local_addr().unwrap());
    // As a command-line client does: notify, and close the connection.
    let ws = WsConnector::new().connect(&ws_url).await.unwrap();
    ws.notify("note", slow_params("closing")).await.unwrap();
    drop(ws);
    let ran = tokio::time::timeout(PATIENCE, noted.acquire()).await;
    assert!(
        ran.is_ok(),
        "the note was dropped with its connection instead of run"
    );
}
