//! What a client does without being told: its default call timeout on HTTP,
//! WebSocket and streams, overridden and turned off; and the small API
//! conveniences (`Display` of `TransportKind`, the re-exported `http` crate).

use std::time::Duration;

use typed_rpc::client::{ClientError, ClientExt, Params};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{DEFAULT_CALL_TIMEOUT, Server, ServerHandle};
use typed_rpc::{Context, Router, RpcResult, TransportKind, rpc};

/// Short enough to keep the tests quick, long enough to be a clear miss.
const SHORT: Duration = Duration::from_millis(150);

#[rpc]
trait Sleepy {
    /// Answers after `millis` milliseconds.
    #[method(name = "sleep")]
    async fn sleep(&self, millis: u64) -> RpcResult<u64>;

    /// The transport the call came on, as its `Display` spells it.
    #[method(name = "transport")]
    async fn transport_name(&self, #[context] cx: &Context) -> RpcResult<String>;
}

struct Sleeper;

impl Sleepy for Sleeper {
    async fn sleep(&self, millis: u64) -> RpcResult<u64> {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        Ok(millis)
    }

    async fn transport_name(&self, cx: &Context) -> RpcResult<String> {
        Ok(cx.transport().to_string())
    }
}

fn server() -> Server {
    Server::new(Router::new(SleepyService::new(Sleeper)))
}

fn sleep_for(duration: Duration) -> Option<Params> {
    Some(Params::from_value(&(duration.as_millis() as u64,)).unwrap())
}

fn assert_timed_out<T: std::fmt::Debug>(result: Result<T, ClientError>) {
    match result {
        Err(err) => assert!(err.is_timeout(), "a timeout error, not {err:?}"),
        Ok(value) => panic!("the call should have timed out, got {value:?}"),
    }
}

async fn http_server() -> (ServerHandle, String) {
    let handle = server().serve_http("127.0.0.1:0").await.unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, format!("{addr}"))
}

#[test]
fn the_default_timeout_is_the_documented_thirty_seconds() {
    assert_eq!(DEFAULT_CALL_TIMEOUT, Duration::from_secs(30));
    let http = HttpClient::new("http://127.0.0.1:1/").unwrap();
    assert_eq!(http.timeout(), Some(DEFAULT_CALL_TIMEOUT));
    let patient = HttpClient::builder("http://127.0.0.1:1/")
        .timeout(None)
        .build()
        .unwrap();
    assert_eq!(patient.timeout(), None);
}

#[tokio::test]
async fn an_http_call_longer_than_its_timeout_fails_with_a_timeout() {
    let (handle, addr) = http_server().await;
    let client = HttpClient::builder(&format!("http://{addr}/"))
        .timeout(SHORT)
        .build()
        .unwrap();
    assert_timed_out(client.call::<u64>("sleep", sleep_for(SHORT * 10)).await);
    // A call that fits is answered on the same client.
    assert_eq!(
        client
            .call::<u64>("sleep", sleep_for(Duration::ZERO))
            .await
            .unwrap(),
        0
    );
    let _ = handle.shutdown().await;
}

#[tokio::test]
async fn a_websocket_call_times_out_by_default_and_as_configured() {
    let (handle, addr) = http_server().await;
    let connection = WsConnector::new()
        .connect(&format!("ws://{addr}/"))
        .await
        .unwrap();
    assert_eq!(connection.timeout(), Some(DEFAULT_CALL_TIMEOUT));
    let hasty = connection.clone().with_timeout(SHORT);
    assert_timed_out(hasty.call::<u64>("sleep", sleep_for(SHORT * 10)).await);
    assert_eq!(connection.with_timeout(None).timeout(), None);
    let _ = handle.shutdown().await;
}

#[tokio::test]
async fn a_tcp_call_longer_than_its_timeout_fails_with_a_timeout() {
    let handle = server()
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap();
    let connection = StreamConnector::new(Framing::Lines)
        .connect_tcp(handle.local_addr().unwrap())
        .await
        .unwrap()
        .with_timeout(SHORT);
    assert_timed_out(connection.call::<u64>("sleep", sleep_for(SHORT * 10)).await);
    let _ = handle.shutdown().await;
}

#[tokio::test]
async fn transport_kinds_display_as_their_names() {
    let (handle, addr) = http_server().await;
    let http = HttpClient::new(&format!("http://{addr}/")).unwrap();
    assert_eq!(
        http.call::<String>("transport", None).await.unwrap(),
        "http"
    );
    let ws = WsConnector::new()
        .connect(&format!("ws://{addr}/"))
        .await
        .unwrap();
    assert_eq!(
        ws.call::<String>("transport", None).await.unwrap(),
        "websocket"
    );
    let _ = handle.shutdown().await;
    let names: Vec<String> = [
        TransportKind::InProcess,
        TransportKind::Tcp,
        TransportKind::Stdio,
        TransportKind::Stream,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(names, ["in-process", "tcp", "stdio", "stream"]);
}

#[test]
fn header_names_need_no_dependency_on_http() {
    // The types of `Context::headers`, through the facade alone.
    let mut headers = typed_rpc::http::HeaderMap::new();
    headers.insert(
        typed_rpc::http::header::AUTHORIZATION,
        typed_rpc::http::HeaderValue::from_static("Bearer s3cret"),
    );
    let cx = Context::new(TransportKind::Http).with_headers(headers);
    let seen = cx.headers().and_then(|h| h.get("authorization"));
    assert_eq!(seen.unwrap(), "Bearer s3cret");
}
