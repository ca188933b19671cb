//! The HTTP transport, end to end on loopback: the server (standalone and
//! mounted in axum), the client, and the generated typed client over it.

use crate::support;
use crate::support::calculator::{
    Calc, CalculatorClient, check_request_shapes, serve, serve_calc, server_of,
};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use typed_rpc::client::{Batch, ClientExt, Params, RetryPolicy, TransportErrorKind};
use typed_rpc::transport::http::{HttpClient, ResponseBody};
use typed_rpc::transport::{Limits, Server};
use typed_rpc::{ClientError, TransportKind};

fn server(limits: Limits) -> Server {
    server_of(Calc::default(), limits)
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/")
}

fn typed(addr: SocketAddr) -> CalculatorClient<HttpClient> {
    CalculatorClient::new(HttpClient::new(&url(addr)).unwrap())
}

// ---------------------------------------------------------------------------
// Raw HTTP/1.1, to see exactly what goes over the wire.

struct RawResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// One client connection, kept alive across requests.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Conn {
        Conn {
            stream: TcpStream::connect(addr).await.unwrap(),
            buf: Vec::new(),
        }
    }

    async fn send(&mut self, request: &[u8]) -> RawResponse {
        self.stream.write_all(request).await.unwrap();
        self.response().await
    }

    async fn fill(&mut self) -> usize {
        let mut chunk = [0; 4096];
        let n = self.stream.read(&mut chunk).await.unwrap();
        self.buf.extend_from_slice(&chunk[..n]);
        n
    }

    /// The next response; fails the test rather than hang when none comes.
    async fn response(&mut self) -> RawResponse {
        tokio::time::timeout(Duration::from_secs(5), self.read_response())
            .await
            .expect("no response within 5 s")
    }

    async fn read_response(&mut self) -> RawResponse {
        let end = loop {
            if let Some(at) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            assert!(self.fill().await > 0, "connection closed before a response");
        };
        let head = String::from_utf8(self.buf[..end].to_vec()).unwrap();
        self.buf.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(':').unwrap();
                (name.trim().to_owned(), value.trim().to_owned())
            })
            .collect();
        let length = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .map_or(0, |(_, v)| v.parse().unwrap());
        while self.buf.len() < length {
            assert!(self.fill().await > 0, "connection closed inside a body");
        }
        let body = self.buf.drain(..length).collect();
        RawResponse {
            status,
            headers,
            body,
        }
    }

    /// Whether the server closed the connection (within a few seconds).
    async fn closed(&mut self) -> bool {
        let mut byte = [0; 1];
        let read = tokio::time::timeout(Duration::from_secs(5), self.stream.read(&mut byte)).await;
        matches!(read, Ok(Ok(0) | Err(_)))
    }
}

fn post_to(path: &str, content_type: Option<&str>, body: &str) -> Vec<u8> {
    let content_type = content_type.map_or(String::new(), |ct| format!("Content-Type: {ct}\r\n"));
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\n{content_type}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn post(content_type: Option<&str>, body: &str) -> Vec<u8> {
    post_to("/", content_type, body)
}

fn post_json(body: &str) -> Vec<u8> {
    post(Some("application/json"), body)
}

const SUBTRACT: &str = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;

// ---------------------------------------------------------------------------
// The server.

#[tokio::test]
async fn every_conformance_vector_over_http() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/jsonrpc2-spec-examples.json");
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    let (handle, addr) = serve(Limits::default()).await;
    // All on one kept-alive connection.
    let mut conn = Conn::open(addr).await;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let response = conn
            .send(&post_json(case["request"].as_str().unwrap()))
            .await;
        match &case["response"] {
            Value::Null => {
                assert_eq!(response.status, 204, "{name}");
                assert!(response.body.is_empty(), "{name}");
            }
            expected => {
                assert_eq!(response.status, 200, "{name}");
                assert_eq!(
                    response.header("content-type"),
                    Some("application/json"),
                    "{name}"
                );
                let actual = response.json();
                assert!(
                    support::same_reply(expected, &actual),
                    "{name}: expected {expected}, got {actual}"
                );
            }
        }
    }
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn notifications_are_answered_with_204() {
    let (_handle, addr) = serve(Limits::default()).await;
    let mut conn = Conn::open(addr).await;
    let single = conn
        .send(&post_json(
            r#"{"jsonrpc":"2.0","method":"update","params":[1,2]}"#,
        ))
        .await;
    assert_eq!((single.status, single.body.len()), (204, 0));
    assert_eq!(single.header("content-type"), None);
    let batch = conn
        .send(&post_json(
            r#"[{"jsonrpc":"2.0","method":"update","params":[3]},{"jsonrpc":"2.0","method":"notify_sum","params":[4]}]"#,
        ))
        .await;
    assert_eq!((batch.status, batch.body.len()), (204, 0));
    assert_eq!(
        typed(addr).total().await.unwrap(),
        10,
        "the notifications ran"
    );
}

#[tokio::test]
async fn other_methods_get_405_with_allow_post() {
    let (_handle, addr) = serve(Limits::default()).await;
    for method in ["GET", "PUT", "DELETE", "OPTIONS"] {
        let request = format!("{method} / HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n");
        let response = Conn::open(addr).await.send(request.as_bytes()).await;
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
    }
    // A WebSocket handshake is a GET too, answered `101` with the `ws`
    // feature (tests/ws/server.rs); an upgrade to anything else is refused.
    let upgrade = "GET / HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
    let response = Conn::open(addr).await.send(upgrade.as_bytes()).await;
    assert_eq!(response.status, 405);
}

#[tokio::test]
async fn oversized_bodies_get_413_before_they_are_read() {
    let limit = 1024;
    let (_handle, addr) = serve(Limits::default().max_message_size(limit)).await;
    let padding = " ".repeat(limit);
    let big = format!(r#"{{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}}{padding}"#);

    // Refused on its Content-Length alone: the body is never sent.
    let mut conn = Conn::open(addr).await;
    let head = "POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
                Content-Length: 1000000000\r\n\r\n";
    let response = conn.send(head.as_bytes()).await;
    assert_eq!(response.status, 413);
    assert_eq!(response.header("connection"), Some("close"));
    assert!(conn.closed().await);

    // Chunked, with no length up front: refused once it grows past the limit.
    let mut conn = Conn::open(addr).await;
    let mut chunked =
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for piece in big.as_bytes().chunks(300) {
        chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked.extend_from_slice(piece);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(conn.send(&chunked).await.status, 413);

    // Exactly at the limit is fine, and the server goes on serving.
    let fits = r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#;
    let fits = format!("{fits}{}", " ".repeat(limit - fits.len()));
    let response = Conn::open(addr).await.send(&post_json(&fits)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.json()["result"], 1);
}

#[tokio::test]
async fn content_types() {
    let (_handle, addr) = serve(Limits::default()).await;
    let mut conn = Conn::open(addr).await;
    for accepted in [
        None,
        Some("application/json"),
        Some("application/json; charset=utf-8"),
        Some("Application/JSON;Charset=\"UTF-8\""),
        Some("application/json-rpc"),
    ] {
        let response = conn.send(&post(accepted, SUBTRACT)).await;
        assert_eq!(response.status, 200, "{accepted:?}");
        assert_eq!(response.json()["result"], 19, "{accepted:?}");
    }
    for refused in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=iso-8859-1",
    ] {
        let response = conn.send(&post(Some(refused), SUBTRACT)).await;
        assert_eq!(response.status, 415, "{refused}");
        assert_eq!(response.header("accept"), Some("application/json"));
    }
    let gzipped = format!(
        "POST / HTTP/1.1\r\nHost: test\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n{SUBTRACT}",
        SUBTRACT.len()
    );
    assert_eq!(conn.send(gzipped.as_bytes()).await.status, 415);
}

#[tokio::test]
async fn keeps_connections_alive() {
    let (_handle, addr) = serve(Limits::default()).await;
    let mut conn = Conn::open(addr).await;
    let first = conn.send(&post_json(SUBTRACT)).await;
    let second = conn
        .send(&post_json(
            r#"{"jsonrpc":"2.0","method":"get_data","id":2}"#,
        ))
        .await;
    assert_eq!(
        first.json(),
        json!({"jsonrpc": "2.0", "result": 19, "id": 1})
    );
    assert_eq!(
        second.json(),
        json!({"jsonrpc": "2.0", "result": ["hello", 5], "id": 2})
    );
    assert_eq!(second.header("connection"), None, "not closing");
}

#[tokio::test]
async fn slow_headers_are_cut_off() {
    let limits = Limits::default().header_timeout(Duration::from_millis(100));
    let (_handle, addr) = serve(limits).await;
    let mut conn = Conn::open(addr).await;
    conn.stream
        .write_all(b"POST / HTTP/1.1\r\nHost: te")
        .await
        .unwrap();
    let started = Instant::now();
    assert!(conn.closed().await);
    assert!(started.elapsed() >= Duration::from_millis(80));
}

#[tokio::test]
async fn graceful_shutdown_finishes_calls_in_flight_and_refuses_new_connections() {
    let calc = Calc::default();
    let started = calc.slow_started.clone();
    let (handle, addr) = serve_calc(calc, Limits::default()).await;
    let client = typed(addr);
    let slow = tokio::spawn(async move { client.slow(300).await });
    started.notified().await;
    let shutdown = tokio::spawn(handle.shutdown());
    // New connections are refused as soon as the shutdown begins.
    let deadline = Instant::now() + Duration::from_secs(2);
    while TcpStream::connect(addr).await.is_ok() {
        assert!(Instant::now() < deadline, "still accepting connections");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        slow.await.unwrap().unwrap(),
        300,
        "the call in flight got its reply"
    );
    assert!(shutdown.await.unwrap(), "everything finished in time");
    let err = typed(addr).subtract(1, 1).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Transport(e) if e.kind() == TransportErrorKind::Connect),
        "{err}"
    );
}

#[tokio::test]
async fn connections_over_the_limit_get_503_until_one_closes() {
    let (_handle, addr) = serve(Limits::default().max_connections(1)).await;
    let mut first = Conn::open(addr).await;
    assert_eq!(first.send(&post_json(SUBTRACT)).await.status, 200);

    let mut second = TcpStream::connect(addr).await.unwrap();
    let mut refusal = String::new();
    second.read_to_string(&mut refusal).await.unwrap();
    assert!(
        refusal.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{refusal}"
    );
    assert!(refusal.contains("Connection: close\r\n"));

    drop(first);
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut conn = Conn::open(addr).await;
        conn.stream.write_all(&post_json(SUBTRACT)).await.unwrap();
        let mut head = [0; 12];
        if conn.stream.read_exact(&mut head).await.is_ok() && &head == b"HTTP/1.1 200" {
            break;
        }
        assert!(Instant::now() < deadline, "the slot was never freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn mounts_in_axum_under_tower_layers() {
    use axum::extract::ConnectInfo;
    use axum::http::{HeaderValue, Request};

    let rpc = server(Limits::default()).into_http_service();
    let layered = tower::ServiceBuilder::new()
        // Pass axum's peer address on to the handlers' `Context`.
        .map_request(|mut request: Request<axum::body::Body>| {
            if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>() {
                let peer = *peer;
                request.extensions_mut().insert(peer);
            }
            request
        })
        .map_response(|mut response: axum::http::Response<ResponseBody>| {
            response
                .headers_mut()
                .insert("x-served-by", HeaderValue::from_static("typed-rpc"));
            response
        })
        .service(rpc);
    let app = axum::Router::new()
        .route_service("/rpc", layered)
        .route("/health", axum::routing::get(|| async { "ok" }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .unwrap();
    });

    let http = HttpClient::builder(&format!("http://{addr}/rpc"))
        .header("authorization", "Bearer mounted")
        .build()
        .unwrap();
    let client = CalculatorClient::new(http);
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    let me = client.whoami().await.unwrap();
    assert_eq!(me["transport"], "Http");
    assert_eq!(me["authorization"], json!(["Bearer mounted"]));
    assert!(me["peer"].as_str().unwrap().starts_with("127.0.0.1:"));

    let mut conn = Conn::open(addr).await;
    let response = conn
        .send(&post_to("/rpc", Some("application/json"), SUBTRACT))
        .await;
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("x-served-by"),
        Some("typed-rpc"),
        "the layer ran"
    );
    assert_eq!(response.json()["result"], 19);
    let notification = r#"{"jsonrpc":"2.0","method":"update","params":[1]}"#;
    let notification = conn.send(&post_to("/rpc", None, notification)).await;
    assert_eq!(notification.status, 204);
    let elsewhere = conn.send(&post_to("/other", None, SUBTRACT)).await;
    assert_eq!(elsewhere.status, 404, "the app's other routes are its own");
}

// ---------------------------------------------------------------------------
// The client.

#[tokio::test]
async fn typed_client_calls_every_method_shape() {
    let (_handle, addr) = serve(Limits::default()).await;
    let client = typed(addr);
    check_request_shapes(&client).await;
    client.update(vec![1, 2, 3]).await.unwrap();
    client.notify_hello(1).await.unwrap();
    client.notify_sum(vec![4]).await.unwrap();
    assert_eq!(client.total().await.unwrap(), 10);
    let err = client.add(i64::MAX, 1).await.unwrap_err();
    let rpc = err.rpc_error().expect("a JSON-RPC error");
    assert_eq!((rpc.code(), rpc.message()), (-32000, "Overflow"));
    // Untyped calls go over the same transport.
    let err = client
        .transport()
        .call::<i64>("subtract", Some(Params::from_value(&[1]).unwrap()))
        .await
        .unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32602);
}

#[tokio::test]
async fn handlers_see_the_headers_and_the_peer() {
    let (_handle, addr) = serve(Limits::default()).await;
    let http = HttpClient::builder(&url(addr))
        .header("authorization", "Bearer t0ken")
        .header("x-tag", "one")
        .header("x-tag", "two")
        .build()
        .unwrap();
    let me = CalculatorClient::new(http).whoami().await.unwrap();
    assert_eq!(me["transport"], format!("{:?}", TransportKind::Http));
    assert_eq!(me["authorization"], json!(["Bearer t0ken"]));
    assert_eq!(me["x-tag"], json!(["one", "two"]));
    assert!(me["peer"].as_str().unwrap().starts_with("127.0.0.1:"));
}

#[tokio::test]
async fn batches_are_one_post() {
    let (_handle, addr) = serve(Limits::default()).await;
    let client = HttpClient::new(&url(addr)).unwrap();
    let mut batch = Batch::new();
    let difference = batch.request::<i64>("subtract", Some(Params::from_value(&(42, 23)).unwrap()));
    batch.notify("update", Some(Params::from_value(&[5]).unwrap()));
    let missing = batch.request::<i64>("foobar", None);
    let data = batch.request::<(String, i64)>("get_data", None);
    let replies = typed_rpc::client::Transport::send_batch(&client, &batch)
        .await
        .unwrap();
    assert_eq!(replies.get(&difference).unwrap(), 19);
    assert_eq!(replies.get(&data).unwrap(), ("hello".to_owned(), 5));
    let missing = replies.get(&missing).unwrap_err();
    assert_eq!(
        missing.rpc_error().map(|e| e.code()),
        Some(-32601),
        "{missing}"
    );

    let mut notifications = Batch::new();
    notifications.notify("update", Some(Params::from_value(&[1]).unwrap()));
    typed_rpc::client::Transport::send_batch(&client, &notifications)
        .await
        .unwrap();
    assert_eq!(typed(addr).total().await.unwrap(), 6);
}

/// A scripted HTTP server: `script(hit, request)` answers the `hit`-th `POST`
/// (from 0). Returns its address and the number of hits.
async fn stub<F>(script: F) -> (SocketAddr, Arc<AtomicUsize>)
where
    F: Fn(usize, &Value) -> (StatusCode, HeaderMap, String) + Send + Sync + 'static,
{
    let hits = Arc::new(AtomicUsize::new(0));
    let script = Arc::new(script);
    let counter = hits.clone();
    let handler = move |body: String| {
        let hit = counter.fetch_add(1, Ordering::SeqCst);
        let request: Value = serde_json::from_str(&body).unwrap();
        let reply = script(hit, &request);
        async move { reply }
    };
    let app = axum::Router::new().route("/", axum::routing::post(handler));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, hits)
}

fn status(status: u16, retry_after: Option<&str>) -> (StatusCode, HeaderMap, String) {
    let mut headers = HeaderMap::new();
    if let Some(retry_after) = retry_after {
        headers.insert("retry-after", retry_after.parse().unwrap());
    }
    (
        StatusCode::from_u16(status).unwrap(),
        headers,
        "try later".to_owned(),
    )
}

fn result(request: &Value, result: Value) -> (StatusCode, HeaderMap, String) {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "application/json".parse().unwrap());
    let reply = json!({"jsonrpc": "2.0", "result": result, "id": request["id"]});
    (StatusCode::OK, headers, reply.to_string())
}

fn retrying(addr: SocketAddr, policy: RetryPolicy) -> CalculatorClient<HttpClient> {
    let http = HttpClient::builder(&url(addr))
        .retry(policy)
        .build()
        .unwrap();
    CalculatorClient::new(http)
}

fn quick_retries(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts)
        .base_backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_secs(2))
}

#[tokio::test]
async fn http_statuses_are_errors_with_retry_after() {
    let (addr, _) = stub(|hit, _| match hit {
        0 => status(429, Some("7")),
        1 => status(503, Some("Wed, 21 Oct 2015 07:28:00 GMT")),
        _ => status(401, None),
    })
    .await;
    let client = typed(addr);
    for (expected_status, expected_delay) in [
        (429, Some(Duration::from_secs(7))),
        (503, Some(Duration::ZERO)),
        (401, None),
    ] {
        match client.subtract(1, 1).await.unwrap_err() {
            ClientError::Http(err) => {
                assert_eq!(err.status(), expected_status);
                assert_eq!(err.retry_after(), expected_delay);
                assert_eq!(err.body(), "try later");
            }
            other => panic!("expected an HTTP error, got {other}"),
        }
    }
}

#[tokio::test]
async fn transport_and_decode_errors() {
    // Nobody listening: connect error.
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let err = typed(closed).subtract(1, 1).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Transport(e) if e.kind() == TransportErrorKind::Connect),
        "{err}"
    );

    // Too slow: timeout.
    let (_handle, addr) = serve(Limits::default()).await;
    let http = HttpClient::builder(&url(addr))
        .timeout(Duration::from_millis(50))
        .build()
        .unwrap();
    let err = CalculatorClient::new(http).slow(300).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");

    // The connection dies before the reply: closed.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dying = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = [0; 1024];
            let _ = stream.read(&mut buf).await;
        }
    });
    let err = typed(dying).subtract(1, 1).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Transport(e) if e.kind() == TransportErrorKind::Closed),
        "{err}"
    );

    // A reply to another id, or not JSON-RPC at all: decode errors.
    let (addr, _) = stub(|hit, request| match hit {
        0 => result(
            &json!({"id": request["id"].as_u64().unwrap() + 1}),
            json!(0),
        ),
        _ => (StatusCode::OK, HeaderMap::new(), "<html>".to_owned()),
    })
    .await;
    let client = typed(addr);
    let err = client.subtract(1, 1).await.unwrap_err();
    assert!(matches!(err, ClientError::Decode(_)), "{err}");
    let err = client.subtract(1, 1).await.unwrap_err();
    assert!(matches!(err, ClientError::Decode(_)), "{err}");
}

#[tokio::test]
async fn a_reply_over_the_clients_limit_is_refused() {
    let (addr, _) = stub(|_, request| result(request, json!("x".repeat(100)))).await;
    let limited = |bytes| {
        let http = HttpClient::builder(&url(addr))
            .max_response_size(bytes)
            .build()
            .unwrap();
        CalculatorClient::new(http)
    };
    let err = limited(64).greet("ignored".into(), None).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Transport(e) if e.kind() == TransportErrorKind::Refused),
        "{err}"
    );
    assert_eq!(
        limited(1024).greet("ignored".into(), None).await.unwrap(),
        "x".repeat(100)
    );
}

/// Asserts `call` failed with an HTTP `status`.
#[track_caller]
fn assert_http_status<T: std::fmt::Debug>(call: Result<T, ClientError>, status: u16) {
    let err = call.unwrap_err();
    assert!(
        matches!(&err, ClientError::Http(e) if e.status() == status),
        "{err}"
    );
}

#[tokio::test]
async fn calls_not_marked_idempotent_are_sent_once() {
    let (addr, hits) = stub(|_, _| status(503, Some("0"))).await;
    let err = retrying(addr, quick_retries(5)).add(1, 2).await;
    assert_http_status(err, 503);
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn idempotent_calls_are_retried() {
    let (addr, hits) = stub(|hit, request| match hit {
        0 => status(503, None),
        1 => status(502, Some("0")),
        _ => result(request, json!(19)),
    })
    .await;
    assert_eq!(
        retrying(addr, quick_retries(5))
            .subtract(42, 23)
            .await
            .unwrap(),
        19
    );
    assert_eq!(hits.load(Ordering::SeqCst), 3);

    // No more than the policy's attempts.
    let (addr, hits) = stub(|_, _| status(504, None)).await;
    let err = retrying(addr, quick_retries(3)).subtract(1, 1).await;
    assert_http_status(err, 504);
    assert_eq!(hits.load(Ordering::SeqCst), 3);

    // No retries without a policy.
    let (addr, hits) = stub(|_, _| status(503, None)).await;
    typed(addr).subtract(1, 1).await.unwrap_err();
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn retries_honour_retry_after() {
    let (addr, hits) = stub(|hit, request| match hit {
        0 => status(429, Some("1")),
        _ => result(request, json!(19)),
    })
    .await;
    let started = Instant::now();
    assert_eq!(
        retrying(addr, quick_retries(3))
            .subtract(42, 23)
            .await
            .unwrap(),
        19
    );
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited as asked"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 2);

    // Asked to wait longer than the policy allows: give up at once, and say when.
    let (addr, hits) = stub(|_, _| status(503, Some("3600"))).await;
    let err = retrying(addr, quick_retries(3))
        .subtract(1, 1)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Http(e) if e.retry_after() == Some(Duration::from_secs(3600)))
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn json_rpc_errors_are_never_retried() {
    let (addr, hits) = stub(|_, request| {
        let reply = json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "busy"}, "id": request["id"]});
        (StatusCode::OK, HeaderMap::new(), reply.to_string())
    })
    .await;
    let err = retrying(addr, quick_retries(5))
        .subtract(1, 1)
        .await
        .unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32000);
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

/// `Infallible` is the error of the server as a service: every failure is a response.
#[test]
fn the_service_never_fails() {
    fn error_of<S: tower::Service<axum::http::Request<axum::body::Body>, Error = Infallible>>(
        _: &S,
    ) {
    }
    error_of(&server(Limits::default()).into_http_service());
}
