//! The WebSocket transport, end to end on loopback: the server on the HTTP
//! port (and mounted in axum), `WsConnector`, the generated typed client over
//! it both ways, and what hostile or careless peers get. Raw frames are sent
//! with tokio-tungstenite's own client, or byte by byte.

use crate::support;
use crate::support::calculator::{
    Calc, CalculatorClient, Editor, EditorHandlers, EditorState, LogMessage, check_request_shapes,
    serve, serve_calc, server_of,
};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, Utf8Bytes};
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};
use typed_rpc::client::{Batch, ClientExt, Params, Transport, TransportErrorKind};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Connection, Limits, Server, ServerHandle};
use typed_rpc::{ClientError, Router};

/// How long anything in these tests may take before it counts as a hang.
const PATIENCE: Duration = Duration::from_secs(5);

const SUBTRACT: &str = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;

fn ws_url(addr: SocketAddr) -> String {
    format!("ws://{addr}/")
}

/// A typed client over a fresh connection, whose calls fail rather than hang.
async fn typed(addr: SocketAddr) -> CalculatorClient<Connection> {
    let connection = WsConnector::new().connect(&ws_url(addr)).await.unwrap();
    CalculatorClient::new(connection.with_timeout(PATIENCE))
}

/// Reads the total until it is `expected` (notifications run as tasks of
/// their own, after the call that sent them has returned), or gives up.
async fn total_becomes<T: Transport>(client: &CalculatorClient<T>, expected: i64) -> i64 {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let total = client.total().await.unwrap();
        if total == expected || Instant::now() > deadline {
            return total;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---------------------------------------------------------------------------
// A peer that sends exactly what a test says: tokio-tungstenite's client.

struct Peer(WebSocketStream<TcpStream>);

impl Peer {
    async fn connect(addr: SocketAddr) -> Peer {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (ws, response) = tokio_tungstenite::client_async(ws_url(addr), stream)
            .await
            .unwrap();
        assert_eq!(response.status(), 101);
        Peer(ws)
    }

    async fn send(&mut self, message: Message) {
        self.0.send(message).await.unwrap();
    }

    async fn send_text(&mut self, text: &str) {
        self.send(Message::text(text)).await;
    }

    /// The next message (tungstenite answers pings), `None` once the
    /// connection has ended cleanly; fails the test on an error or a hang.
    async fn next(&mut self) -> Option<Message> {
        let next = tokio::time::timeout(PATIENCE, self.0.next())
            .await
            .expect("the server answers in time");
        next.map(|message| message.expect("a clean connection"))
    }

    /// The next data frame, a text frame holding JSON.
    async fn reply(&mut self) -> Value {
        loop {
            match self.next().await {
                Some(Message::Text(text)) => return serde_json::from_str(&text).unwrap(),
                Some(Message::Ping(_) | Message::Pong(_)) => continue,
                other => panic!("expected a text frame, got {other:?}"),
            }
        }
    }

    /// The server's close frame, after checking that the connection then
    /// ends cleanly (tungstenite has sent the echo, the server has closed).
    async fn closed(&mut self) -> CloseFrame {
        loop {
            match self.next().await {
                Some(Message::Close(Some(frame))) => {
                    assert_eq!(
                        self.next().await,
                        None,
                        "the connection ends after the close"
                    );
                    return frame;
                }
                Some(Message::Ping(_) | Message::Pong(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }
}

/// Shuts the server down while each peer reads the server's close frame,
/// which must say `1001`, and answers it. Returns whether everything
/// finished in time.
async fn shut_down(handle: ServerHandle, peers: &mut [&mut Peer]) -> bool {
    let shutdown = tokio::spawn(handle.shutdown());
    for peer in peers {
        assert_eq!(peer.closed().await.code, CloseCode::Away);
    }
    shutdown.await.unwrap()
}

// ---------------------------------------------------------------------------
// The protocol over WebSocket.

#[tokio::test]
async fn every_conformance_vector_over_websocket() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/jsonrpc2-spec-examples.json");
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    let (router, _) = support::calculator();
    let handle = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    // All on one connection, one case at a time.
    let mut peer = Peer::connect(handle.local_addr().unwrap()).await;
    for (n, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        peer.send_text(case["request"].as_str().unwrap()).await;
        match &case["response"] {
            Value::Null => {
                // Nothing comes back: the next frame answers a request sent after.
                let marker = format!("after case {n}");
                let follow_up = json!({"jsonrpc": "2.0", "method": "get_data", "id": marker});
                peer.send_text(&follow_up.to_string()).await;
                let reply = peer.reply().await;
                assert_eq!(
                    reply["id"], marker,
                    "{name}: expected no reply, got {reply}"
                );
            }
            expected => {
                let actual = peer.reply().await;
                assert!(
                    support::same_reply(expected, &actual),
                    "{name}: expected {expected}, got {actual}"
                );
            }
        }
    }
    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn the_typed_client_calls_every_method_shape() {
    let (handle, addr) = serve(Limits::default()).await;
    let client = typed(addr).await;
    check_request_shapes(&client).await;
    client.update(vec![1, 2, 3]).await.unwrap();
    assert_eq!(total_becomes(&client, 6).await, 6);

    let me = client.whoami().await.unwrap();
    assert_eq!(me["transport"], "WebSocket");
    assert_eq!(me["connection"], true, "handlers can call back");

    let connection = client.transport();
    support::check_caller_mistakes(connection).await;

    // A batch: one message each way.
    let mut batch = Batch::new();
    let positional = batch.request::<i64>("subtract", Some(Params::from_value(&(42, 23)).unwrap()));
    let by_name = batch.request::<i64>(
        "subtract",
        Some(Params::from_value(&json!({"subtrahend": 42, "minuend": 23})).unwrap()),
    );
    batch.notify("update", Some(Params::from_value(&[4]).unwrap()));
    let data = batch.request::<(String, i64)>("get_data", None);
    let missing = batch.request::<i64>("multiply", None);
    let replies = connection.send_batch(&batch).await.unwrap();
    assert_eq!(replies.get(&positional).unwrap(), 19);
    assert_eq!(replies.get(&by_name).unwrap(), -19);
    assert_eq!(replies.get(&data).unwrap(), ("hello".to_owned(), 5));
    let err = replies.get(&missing).unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32601);

    // Only notifications: nothing comes back and nothing is waited for.
    let mut notifications = Batch::new();
    notifications.notify("update", Some(Params::from_value(&[5]).unwrap()));
    notifications.notify("update", Some(Params::from_value(&[6]).unwrap()));
    connection.send_batch(&notifications).await.unwrap();
    assert_eq!(total_becomes(&client, 6 + 4 + 5 + 6).await, 21);

    drop(client);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn the_server_calls_back_into_its_client() {
    let (handle, addr) = serve(Limits::default()).await;
    let state = Arc::new(EditorState::default());
    let connection = WsConnector::new()
        .handlers(Router::new(
            EditorHandlers {
                state: state.clone(),
                log_delay: Duration::ZERO,
            }
            .into_service(),
        ))
        .connect(&ws_url(addr))
        .await
        .unwrap();
    let client = CalculatorClient::new(connection.with_timeout(PATIENCE));
    assert_eq!(
        client.hover("main".to_owned()).await.unwrap(),
        "main (style=compact)",
        "the server's request was answered by the client's handlers"
    );
    // The server notified before it asked; the client runs each incoming
    // notification as a task of its own.
    let deadline = Instant::now() + PATIENCE;
    while state.logs.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        *state.logs.lock().unwrap(),
        [LogMessage {
            level: 3,
            message: "hovering main".to_owned()
        }]
    );

    // A client without handlers answers the server's requests with -32601.
    let err = typed(addr)
        .await
        .hover("main".to_owned())
        .await
        .unwrap_err();
    let err = err.rpc_error().unwrap();
    assert_eq!(err.code(), -32000);
    assert!(err.message().contains("Method not found"), "{err}");

    drop(client);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_handlers_notifications_reach_the_client_before_its_result() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut peer = Peer::connect(addr).await;
    for id in 1..=3 {
        let request = json!({"jsonrpc": "2.0", "method": "work", "params": [3], "id": id});
        peer.send_text(&request.to_string()).await;
        let mut seen = Vec::new();
        loop {
            let message = peer.reply().await;
            if message["id"] == id {
                assert_eq!(message["result"], 3);
                break;
            }
            assert_eq!(message["method"], "progress", "{message}");
            seen.push(message["params"][0].as_u64().unwrap());
        }
        assert_eq!(seen, [1, 2, 3], "call {id}");
    }
    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn requests_on_one_connection_run_concurrently_and_are_matched_by_id() {
    let (handle, addr) = serve(Limits::default()).await;
    let client = typed(addr).await;
    let started = Instant::now();
    let calls: Vec<_> = (0..10u64)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.slow(200 - 10 * i).await })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        assert_eq!(call.await.unwrap().unwrap(), 200 - 10 * i as u64);
    }
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "took {:?}",
        started.elapsed()
    );

    // On the wire: the quicker request is answered first.
    let mut peer = Peer::connect(addr).await;
    peer.send_text(r#"{"jsonrpc":"2.0","method":"slow","params":[300],"id":"slow"}"#)
        .await;
    peer.send_text(r#"{"jsonrpc":"2.0","method":"slow","params":[1],"id":"quick"}"#)
        .await;
    assert_eq!(peer.reply().await["id"], "quick");
    assert_eq!(peer.reply().await["id"], "slow");

    drop(client);
    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn invalid_json_gets_a_parse_error_and_binary_frames_are_served_as_text() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut peer = Peer::connect(addr).await;

    peer.send_text(r#"{"jsonrpc":"2.0","method"#).await;
    let reply = peer.reply().await;
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], Value::Null);
    peer.send_text(SUBTRACT).await;
    assert_eq!(peer.reply().await["result"], 19, "the connection goes on");

    // JSON in a binary frame is served; the reply is a text frame.
    peer.send(Message::binary(SUBTRACT.as_bytes().to_vec()))
        .await;
    assert_eq!(peer.reply().await["result"], 19);
    peer.send(Message::binary(vec![0xff, 0xfe, b'{'])).await;
    assert_eq!(peer.reply().await["error"]["code"], -32700);
    peer.send_text(SUBTRACT).await;
    assert_eq!(peer.reply().await["result"], 19);

    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn a_response_no_call_waits_for_is_dropped_and_not_answered() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut peer = Peer::connect(addr).await;
    for stray in [
        json!({"jsonrpc": "2.0", "result": 7, "id": 99}),
        json!({"jsonrpc": "2.0", "error": {"code": -1, "message": "no"}, "id": "x"}),
        json!({"jsonrpc": "2.0", "result": null, "id": null}),
    ] {
        peer.send_text(&stray.to_string()).await;
    }
    // The next reply is the request's: nothing answered the responses.
    peer.send_text(SUBTRACT).await;
    assert_eq!(
        peer.reply().await,
        json!({"jsonrpc": "2.0", "result": 19, "id": 1})
    );
    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn oversized_messages_close_with_1009_and_the_server_serves_others() {
    let limit = 1024;
    let (handle, addr) = serve(Limits::default().max_message_size(limit)).await;
    let mut bystander = Peer::connect(addr).await;

    // Exactly at the limit is fine.
    let mut peer = Peer::connect(addr).await;
    let fits = format!("{SUBTRACT}{}", " ".repeat(limit - SUBTRACT.len()));
    peer.send_text(&fits).await;
    assert_eq!(peer.reply().await["result"], 19);

    // One byte over: refused on the frame's header, the connection closed.
    peer.send_text(&format!("{fits} ")).await;
    let frame = peer.closed().await;
    assert_eq!(frame.code, CloseCode::Size);
    // After a failure the server reads until the peer is gone.
    drop(peer);

    // Fragments that add up past the limit: refused as they arrive.
    let mut fragmented = Peer::connect(addr).await;
    let half = "x".repeat(limit / 2 + 1);
    fragmented
        .send(Message::Frame(Frame::message(
            half.clone(),
            OpCode::Data(Data::Text),
            false,
        )))
        .await;
    fragmented
        .send(Message::Frame(Frame::message(
            half,
            OpCode::Data(Data::Continue),
            true,
        )))
        .await;
    assert_eq!(fragmented.closed().await.code, CloseCode::Size);
    drop(fragmented);

    bystander.send_text(SUBTRACT).await;
    assert_eq!(bystander.reply().await["result"], 19, "others go on");
    let mut newcomer = Peer::connect(addr).await;
    newcomer.send_text(SUBTRACT).await;
    assert_eq!(newcomer.reply().await["result"], 19);

    assert!(shut_down(handle, &mut [&mut bystander, &mut newcomer]).await);
}

#[tokio::test]
async fn a_client_closes_with_1009_on_a_reply_over_its_limit() {
    let (handle, addr) = serve(Limits::default()).await;
    let connection = WsConnector::new()
        .max_message_size(64)
        .connect(&ws_url(addr))
        .await
        .unwrap()
        .with_timeout(PATIENCE);
    let client = CalculatorClient::new(connection.clone());
    assert_eq!(client.subtract(2, 1).await.unwrap(), 1);
    let err = client.greet("x".repeat(100), None).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Transport(e) if e.kind() == TransportErrorKind::Closed),
        "{err}"
    );
    tokio::time::timeout(PATIENCE, connection.closed())
        .await
        .expect("the connection ends");
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn broken_frames_close_the_connection_with_their_code() {
    let (handle, addr) = serve(Limits::default()).await;

    // Text that is not UTF-8: 1007.
    let mut peer = Peer::connect(addr).await;
    peer.send(Message::Frame(Frame::message(
        vec![b'"', 0xff, b'"'],
        OpCode::Data(Data::Text),
        true,
    )))
    .await;
    assert_eq!(peer.closed().await.code, CloseCode::Invalid);
    drop(peer);

    // An unmasked frame from a client: 1002.
    let mut tcp = handshake(addr).await;
    let mut frame = vec![0x81, SUBTRACT.len() as u8];
    frame.extend_from_slice(SUBTRACT.as_bytes());
    tcp.write_all(&frame).await.unwrap();
    let mut ws = WebSocketStream::from_raw_socket(tcp, Role::Client, None).await;
    let close = tokio::time::timeout(PATIENCE, ws.next()).await.unwrap();
    match close {
        Some(Ok(Message::Close(Some(frame)))) => assert_eq!(frame.code, CloseCode::Protocol),
        other => panic!("expected a close frame, got {other:?}"),
    }
    // tungstenite answers the close frame; the server, which stopped
    // writing, reads until the end.
    let end = tokio::time::timeout(PATIENCE, ws.next()).await.unwrap();
    assert!(end.is_none(), "{end:?}");
    drop(ws);

    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn frames_sent_with_the_handshake_are_not_lost() {
    let (handle, addr) = serve(Limits::default()).await;
    // A client that does not wait for the `101`: the handshake and its first
    // two messages in one write, so the server reads them all at once.
    let mut bytes = support::raw::WS_HANDSHAKE.to_vec();
    for id in [1, 2] {
        let text =
            format!(r#"{{"jsonrpc":"2.0","method":"subtract","params":[42,{id}],"id":{id}}}"#);
        let mut frame = Frame::message(text.into_bytes(), OpCode::Data(Data::Text), true);
        frame.header_mut().mask = Some([7, 1, 9, 3]);
        frame.format(&mut bytes).unwrap();
    }
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(&bytes).await.unwrap();
    let head = support::raw::read_head(&mut tcp).await;
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    let mut ws = WebSocketStream::from_raw_socket(tcp, Role::Client, None).await;
    let mut replies = Vec::new();
    for _ in 0..2 {
        let reply = tokio::time::timeout(PATIENCE, ws.next()).await.unwrap();
        let Some(Ok(Message::Text(text))) = reply else {
            panic!("expected a reply, got {reply:?}");
        };
        replies.push(serde_json::from_str::<Value>(&text).unwrap());
    }
    replies.sort_by_key(|reply| reply["id"].as_i64());
    assert_eq!(
        replies,
        [
            json!({"jsonrpc": "2.0", "result": 41, "id": 1}),
            json!({"jsonrpc": "2.0", "result": 40, "id": 2}),
        ]
    );
    drop(ws);
    assert!(handle.shutdown().await);
}

/// A TCP connection after a successful handshake written by hand.
async fn handshake(addr: SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(support::raw::WS_HANDSHAKE).await.unwrap();
    let head = support::raw::read_head(&mut tcp).await;
    assert!(head.starts_with("HTTP/1.1 101 "), "{head}");
    // RFC 6455's own example of the key and its accept value.
    assert!(
        head.to_ascii_lowercase()
            .contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="),
        "{head}"
    );
    tcp
}

#[tokio::test]
async fn bad_handshakes_are_refused() {
    let (handle, addr) = serve(Limits::default()).await;
    let attempt = |headers: &'static str| async move {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "GET / HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n{headers}\r\n"
        );
        tcp.write_all(request.as_bytes()).await.unwrap();
        support::raw::read_head(&mut tcp).await
    };
    let old =
        attempt("Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
            .await;
    assert!(old.starts_with("HTTP/1.1 426 "), "{old}");
    assert!(
        old.to_ascii_lowercase()
            .contains("sec-websocket-version: 13\r\n"),
        "{old}"
    );
    let keyless = attempt("Sec-WebSocket-Version: 13\r\n").await;
    assert!(keyless.starts_with("HTTP/1.1 400 "), "{keyless}");
    let bad_key = attempt("Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n").await;
    assert!(bad_key.starts_with("HTTP/1.1 400 "), "{bad_key}");
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// What handlers see, and one port for both transports.

#[tokio::test]
async fn the_handshake_headers_and_the_peer_reach_the_handlers() {
    let (handle, addr) = serve(Limits::default()).await;
    let connection = WsConnector::new()
        .header("authorization", "Bearer s3cret")
        .header("x-tag", "a")
        .header("x-tag", "b")
        .connect(&ws_url(addr))
        .await
        .unwrap();
    let client = CalculatorClient::new(connection.with_timeout(PATIENCE));
    for _ in 0..2 {
        let me = client.whoami().await.unwrap();
        assert_eq!(me["transport"], "WebSocket");
        assert_eq!(me["authorization"], json!(["Bearer s3cret"]));
        assert_eq!(me["x-tag"], json!(["a", "b"]));
        assert!(me["peer"].as_str().unwrap().starts_with("127.0.0.1:"));
    }
    drop(client);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn one_port_serves_posts_and_websocket() {
    let (handle, addr) = serve(Limits::default()).await;
    let http = CalculatorClient::new(HttpClient::new(&format!("http://{addr}/")).unwrap());
    let ws = typed(addr).await;
    assert_eq!(http.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(ws.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(http.whoami().await.unwrap()["transport"], "Http");
    assert_eq!(ws.whoami().await.unwrap()["transport"], "WebSocket");
    // Both talk to the same calculator.
    ws.update(vec![7]).await.unwrap();
    assert_eq!(total_becomes(&http, 7).await, 7);
    drop(ws);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn mounted_in_axum_the_service_accepts_websocket_too() {
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;

    let rpc = server_of(Calc::default(), Limits::default()).into_http_service();
    let app = axum::Router::new()
        .route_service("/rpc", rpc.clone())
        .route(
            "/private",
            axum::routing::get(|| async { (StatusCode::UNAUTHORIZED, "who are you?") }),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let connection = WsConnector::new()
        .connect(&format!("ws://{addr}/rpc"))
        .await
        .unwrap();
    let client = CalculatorClient::new(connection.with_timeout(PATIENCE));
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(client.whoami().await.unwrap()["transport"], "WebSocket");

    // A refused handshake is an HTTP error, with the start of the body.
    let err = WsConnector::new()
        .connect(&format!("ws://{addr}/private"))
        .await
        .unwrap_err();
    match err {
        ClientError::Http(err) => {
            assert_eq!(err.status(), 401);
            assert_eq!(err.body(), "who are you?");
        }
        other => panic!("expected an HTTP error, got {other}"),
    }

    // Called by something that cannot hand its connection over: 405.
    let handshake = Request::get("/rpc")
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .body(axum::body::Body::empty())
        .unwrap();
    let response = rpc.oneshot(handshake).await.unwrap();
    assert_eq!(response.status(), 405);
}

// ---------------------------------------------------------------------------
// Limits, shutdown and closing.

#[tokio::test]
async fn graceful_shutdown_answers_the_calls_in_flight_then_closes_with_1001() {
    let calc = Calc::default();
    let started = calc.slow_started.clone();
    let (handle, addr) = serve_calc(calc, Limits::default()).await;
    let mut peer = Peer::connect(addr).await;
    let client = typed(addr).await;

    peer.send_text(r#"{"jsonrpc":"2.0","method":"slow","params":[300],"id":1}"#)
        .await;
    started.notified().await;
    let typed_call = tokio::spawn({
        let client = client.clone();
        async move { client.slow(250).await }
    });
    started.notified().await;
    let shutdown = tokio::spawn(handle.shutdown());

    let reply = peer.reply().await;
    assert_eq!((&reply["id"], &reply["result"]), (&json!(1), &json!(300)));
    let frame = peer.closed().await;
    assert_eq!(frame.code, CloseCode::Away);
    assert_eq!(frame.reason, "server shutting down");
    assert_eq!(
        typed_call.await.unwrap().unwrap(),
        250,
        "the typed call in flight got its reply too"
    );
    assert!(shutdown.await.unwrap(), "everything finished in time");

    tokio::time::timeout(PATIENCE, client.transport().closed())
        .await
        .expect("the client saw its connection close");
    let err = client.subtract(1, 1).await.unwrap_err();
    assert!(matches!(err, ClientError::Transport(_)), "{err}");
}

#[tokio::test]
async fn websocket_connections_count_against_the_connection_limit() {
    let (handle, addr) = serve(Limits::default().max_connections(1)).await;
    let first = typed(addr).await;
    assert_eq!(first.subtract(2, 1).await.unwrap(), 1);

    // The upgraded connection keeps its slot: a second one is refused.
    let err = WsConnector::new().connect(&ws_url(addr)).await.unwrap_err();
    match &err {
        ClientError::Http(refusal) => assert_eq!(refusal.status(), 503),
        // The refusal may be lost to the reset of a socket closed at once.
        ClientError::Transport(_) => {}
        other => panic!("expected a refusal, got {other}"),
    }

    drop(first);
    let deadline = Instant::now() + PATIENCE;
    let second = loop {
        match WsConnector::new().connect(&ws_url(addr)).await {
            Ok(connection) => break CalculatorClient::new(connection),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(err) => panic!("the slot was never freed: {err}"),
        }
    };
    assert_eq!(second.subtract(3, 1).await.unwrap(), 2);
    drop(second);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn pings_are_answered() {
    let (handle, addr) = serve(Limits::default()).await;
    let mut peer = Peer::connect(addr).await;
    peer.send(Message::Ping("are you there".into())).await;
    assert_eq!(
        peer.next().await,
        Some(Message::Pong("are you there".into()))
    );
    peer.send_text(SUBTRACT).await;
    assert_eq!(peer.reply().await["result"], 19);
    assert!(shut_down(handle, &mut [&mut peer]).await);
}

#[tokio::test]
async fn a_client_closes_cleanly() {
    let (handle, addr) = serve(Limits::default()).await;

    // The server echoes the close frame, then ends the connection.
    let mut peer = Peer::connect(addr).await;
    peer.send_text(SUBTRACT).await;
    assert_eq!(peer.reply().await["result"], 19);
    peer.send(Message::Close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: Utf8Bytes::from_static("bye"),
    })))
    .await;
    let echo = peer.closed().await;
    assert_eq!(
        (echo.code, echo.reason.as_str()),
        (CloseCode::Normal, "bye")
    );
    assert!(handle.shutdown().await);

    // WsConnector's connection closes with 1000 when its last clone goes,
    // and waits for the echo: seen from a tokio-tungstenite server.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let mut seen = Vec::new();
        while let Some(message) = ws.next().await {
            match message.expect("a clean connection") {
                Message::Text(request) => {
                    let request: Value = serde_json::from_str(&request).unwrap();
                    let reply = json!({"jsonrpc": "2.0", "result": "pong", "id": request["id"]});
                    ws.send(Message::text(reply.to_string())).await.unwrap();
                    seen.push("request".to_owned());
                }
                Message::Close(frame) => seen.push(format!("close {:?}", frame.map(|f| f.code))),
                other => seen.push(format!("{other:?}")),
            }
        }
        seen
    });
    let connection = WsConnector::new().connect(&ws_url(addr)).await.unwrap();
    let reply: String = connection.call("ping", None).await.unwrap();
    assert_eq!(reply, "pong");
    drop(connection);
    let seen = tokio::time::timeout(PATIENCE, server)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen, ["request", "close Some(Normal)"]);
}

#[tokio::test]
async fn the_server_closes_idle_connections_cleanly() {
    let limits = Limits::default().idle_timeout(Duration::from_millis(200));
    let (handle, addr) = serve(limits).await;

    let mut peer = Peer::connect(addr).await;
    peer.send_text(SUBTRACT).await;
    assert_eq!(peer.reply().await["result"], 19);
    let started = Instant::now();
    assert_eq!(peer.closed().await.code, CloseCode::Normal);
    assert!(started.elapsed() >= Duration::from_millis(150));

    let connection = WsConnector::new().connect(&ws_url(addr)).await.unwrap();
    tokio::time::timeout(PATIENCE, connection.closed())
        .await
        .expect("the server closed the idle connection");
    assert!(connection.is_closed());
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn connect_over_a_stream_the_caller_opened() {
    let (handle, addr) = serve(Limits::default()).await;
    let stream = TcpStream::connect(addr).await.unwrap();
    let connection = WsConnector::new()
        .connect_over(&ws_url(addr), stream)
        .await
        .unwrap();
    let client = CalculatorClient::new(connection.with_timeout(PATIENCE));
    assert_eq!(client.subtract(5, 3).await.unwrap(), 2);
    let me = client.whoami().await.unwrap();
    assert_eq!(me["transport"], "WebSocket");

    let err = WsConnector::new()
        .connect(&format!("http://{addr}/"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("only ws://"), "{err}");
    drop(client);
    assert!(handle.shutdown().await);
}
