//! Stream transports end to end: TCP with both framings, server-to-client
//! calls through the same generated proxies, limits and graceful shutdown.

use crate::support::calculator::{
    Editor, EditorHandlers, EditorState, LogMessage, hover_through_the_editor,
};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use typed_rpc::client::{Batch, ClientExt, Params, Transport};
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::{Connection, Limits, Server, ServerHandle};
use typed_rpc::{ClientError, Context, Router, RpcResult, TransportKind, rpc};

/// The language server.
#[rpc]
pub trait Language {
    /// Asks the editor for its configuration and logs on it while answering.
    #[method(name = "hover")]
    async fn hover(&self, #[context] cx: &Context, word: String) -> RpcResult<String>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "slow")]
    async fn slow(&self, millis: u64) -> RpcResult<u64>;

    #[method(name = "transport")]
    async fn transport_kind(&self, #[context] cx: &Context) -> RpcResult<String>;

    /// Replaces the document, slowly.
    #[notification(name = "didChange")]
    async fn did_change(&self, text: String);

    /// The document as the server has it.
    #[method(name = "text")]
    async fn text(&self) -> RpcResult<String>;
}

#[derive(Default)]
struct LanguageServer {
    text: Mutex<String>,
}

impl Language for LanguageServer {
    async fn hover(&self, cx: &Context, word: String) -> RpcResult<String> {
        hover_through_the_editor(cx, word).await
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn slow(&self, millis: u64) -> RpcResult<u64> {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        Ok(millis)
    }

    async fn transport_kind(&self, cx: &Context) -> RpcResult<String> {
        Ok(format!(
            "{:?} from {}",
            cx.transport(),
            cx.remote_addr().is_some()
        ))
    }

    async fn did_change(&self, text: String) {
        tokio::time::sleep(Duration::from_millis(30)).await;
        *self.text.lock().unwrap() = text;
    }

    async fn text(&self) -> RpcResult<String> {
        Ok(self.text.lock().unwrap().clone())
    }
}

fn server(limits: Limits) -> Server {
    Server::new(Router::new(LanguageServer::default().into_service())).limits(limits)
}

async fn tcp(framing: Framing, limits: Limits) -> (ServerHandle, std::net::SocketAddr) {
    let handle = server(limits)
        .serve_tcp("127.0.0.1:0", framing)
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

/// A newline-delimited client connection to the server at `addr`.
async fn lines_connection(addr: std::net::SocketAddr) -> Connection {
    StreamConnector::new(Framing::Lines)
        .connect_tcp(addr)
        .await
        .unwrap()
}

#[tokio::test]
async fn typed_calls_notifications_and_batches_over_tcp_lines() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let connection = lines_connection(addr).await;
    let client = LanguageClient::new(connection.clone());

    assert_eq!(client.add(2, 3).await.unwrap(), 5);
    assert_eq!(client.transport_kind().await.unwrap(), "Tcp from true");

    let mut batch = Batch::new();
    let sum = batch.request::<i64>("add", Some(Params::from_value(&(40, 2)).unwrap()));
    batch.notify("add", Some(Params::from_value(&(1, 1)).unwrap()));
    let missing = batch.request::<i64>("nope", None);
    let replies = connection.send_batch(&batch).await.unwrap();
    assert_eq!(replies.get(&sum).unwrap(), 42);
    let missing = replies.get(&missing).unwrap_err();
    assert_eq!(
        missing.rpc_error().map(|e| e.code()),
        Some(-32601),
        "{missing}"
    );

    drop((client, connection));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn the_server_calls_back_into_its_client_over_content_length_framing() {
    let (handle, addr) = tcp(Framing::ContentLength, Limits::default()).await;
    let state = Arc::new(EditorState::default());
    let handlers = EditorHandlers {
        state: state.clone(),
        // Slow, so that a response racing past it would be caught.
        log_delay: Duration::from_millis(50),
    };
    let handlers = Router::new(handlers.into_service());
    let connector = StreamConnector::new(Framing::ContentLength).handlers(handlers);
    let client = LanguageClient::new(connector.connect_tcp(addr).await.unwrap());

    assert_eq!(
        client.hover("main".to_owned()).await.unwrap(),
        "main (style=compact)"
    );
    let logs = state.logs.lock().unwrap().clone();
    assert_eq!(
        logs,
        [LogMessage {
            level: 3,
            message: "hovering main".to_owned()
        }]
    );
    drop(client);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn requests_on_one_connection_run_concurrently() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let client = LanguageClient::new(lines_connection(addr).await);
    let started = Instant::now();
    let calls: Vec<_> = (0..10u64)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.slow(100 + i).await })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        assert_eq!(
            call.await.unwrap().unwrap(),
            100 + i as u64,
            "replies are matched by id"
        );
    }
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "took {:?}",
        started.elapsed()
    );
    drop(client);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_call_times_out_and_the_connection_goes_on() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let connection = lines_connection(addr).await;
    let impatient = LanguageClient::new(connection.clone().with_timeout(Duration::from_millis(50)));
    let err = impatient.slow(500).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert_eq!(LanguageClient::new(connection).add(1, 1).await.unwrap(), 2);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn shutdown_lets_a_slow_call_finish_and_refuses_new_connections() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let client = LanguageClient::new(lines_connection(addr).await);
    let slow = tokio::spawn({
        let client = client.clone();
        async move { client.slow(300).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let shutdown = tokio::spawn(handle.shutdown());
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "the listener is closed"
    );
    assert_eq!(
        slow.await.unwrap().unwrap(),
        300,
        "the call in flight got its reply"
    );
    assert!(
        shutdown.await.unwrap(),
        "everything finished before the deadline"
    );
    let err = client.add(1, 2).await.unwrap_err();
    assert!(matches!(err, ClientError::Transport(_)), "{err}");
}

/// A raw line-oriented TCP peer, to send what no well-behaved client would.
struct RawPeer {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
}

impl RawPeer {
    async fn connect(addr: std::net::SocketAddr) -> Self {
        let (reader, writer) = TcpStream::connect(addr).await.unwrap().into_split();
        RawPeer {
            reader: BufReader::new(reader),
            writer,
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.unwrap();
    }

    /// Sends a request for `a + b` with `id` and returns the sum it is answered.
    async fn add(&mut self, a: i64, b: i64, id: u64) -> serde_json::Value {
        let request =
            serde_json::json!({"jsonrpc": "2.0", "method": "add", "params": [a, b], "id": id});
        self.send(format!("{request}\n").as_bytes()).await;
        let reply = self.line().await.expect("a reply");
        reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("no result: {reply}"))
    }

    /// The next line, or `None` when the server closed the connection.
    async fn line(&mut self) -> Option<serde_json::Value> {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(5), self.reader.read_line(&mut line));
        match read.await.expect("the server answers in time").unwrap() {
            0 => None,
            _ => Some(serde_json::from_str(&line).unwrap()),
        }
    }
}

#[tokio::test]
async fn an_oversized_line_gets_an_error_and_the_connection_goes_on() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default().max_message_size(1024)).await;
    let mut peer = RawPeer::connect(addr).await;
    let padding = "x".repeat(4096);
    peer.send(
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":\"{padding}\"}}\n"
        )
        .as_bytes(),
    )
    .await;
    let refusal = peer.line().await.unwrap();
    assert_eq!(refusal["error"]["code"], -32600);
    assert_eq!(refusal["id"], serde_json::Value::Null);
    assert_eq!(peer.add(1, 2, 7).await, 3);
    drop(peer);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn invalid_json_gets_a_parse_error_and_the_connection_goes_on() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let mut peer = RawPeer::connect(addr).await;
    peer.send(b"{\"jsonrpc\":\"2.0\",\"method\n").await;
    assert_eq!(peer.line().await.unwrap()["error"]["code"], -32700);
    assert_eq!(peer.add(2, 2, 1).await, 4);
    drop(peer);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn connections_beyond_the_limit_are_refused_until_one_closes() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default().max_connections(1)).await;
    let mut first = RawPeer::connect(addr).await;
    assert_eq!(first.add(1, 1, 1).await, 2);

    let mut second = RawPeer::connect(addr).await;
    let refusal = second.line().await.unwrap();
    assert_eq!(refusal["error"]["message"], "Too many connections");
    assert_eq!(second.line().await, None, "then the connection is closed");

    drop(first);
    // The slot frees once the server has seen the first connection end.
    let mut third = loop {
        let mut peer = RawPeer::connect(addr).await;
        peer.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[2,3],\"id\":2}\n")
            .await;
        match peer.line().await {
            Some(reply) if reply.get("result").is_some() => break peer,
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    assert_eq!(third.add(3, 3, 3).await, 6);
    drop(third);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_stream_server_stops_when_its_peer_closes_the_stream() {
    let (client_end, server_end) = tokio::io::duplex(4096);
    let (server_read, server_write) = tokio::io::split(server_end);
    let handle =
        server(Limits::default()).serve_stream(server_read, server_write, Framing::ContentLength);
    let (client_read, client_write) = tokio::io::split(client_end);
    let connection =
        StreamConnector::new(Framing::ContentLength).connect(client_read, client_write);
    let client = LanguageClient::new(connection.clone());
    assert_eq!(client.transport_kind().await.unwrap(), "Stream from false");
    assert_eq!(
        Context::new(TransportKind::Stream).transport(),
        TransportKind::Stream
    );
    client.add(1, 2).await.unwrap();

    connection.close();
    tokio::time::timeout(Duration::from_secs(5), handle.stopped())
        .await
        .expect("the server stops at end of stream");
    assert!(matches!(
        connection.call::<i64>("add", None).await,
        Err(ClientError::Transport(_))
    ));
}

#[tokio::test]
async fn notifications_run_in_order_and_before_what_follows_them() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default()).await;
    let client = LanguageClient::new(lines_connection(addr).await);
    for version in 1..=5 {
        client
            .did_change(format!("version {version}"))
            .await
            .unwrap();
    }
    // Each change sleeps; the request sent right after them sees the last one.
    assert_eq!(client.text().await.unwrap(), "version 5");
    drop(client);
    assert!(handle.shutdown().await);
}

/// A server that asks its client a question while answering a call.
#[rpc]
pub trait Asker {
    #[method(name = "ask")]
    async fn ask(&self, #[context] cx: &typed_rpc::Context) -> typed_rpc::RpcResult<String>;

    #[method(name = "ping")]
    async fn ping(&self) -> typed_rpc::RpcResult<String>;
}

struct AskerImpl;

impl Asker for AskerImpl {
    async fn ask(&self, cx: &typed_rpc::Context) -> typed_rpc::RpcResult<String> {
        let connection = cx.connection().expect("a stream call has a connection");
        connection
            .call::<String>("question", None)
            .await
            .map_err(|err| typed_rpc::ErrorObject::new(-32000, err.to_string()))
    }

    async fn ping(&self) -> typed_rpc::RpcResult<String> {
        Ok("pong".to_owned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_mixing_responses_and_requests_loses_neither() {
    // A connection told requests from responses by a batch's first entry
    // only: the requests of `[response, request]` went unanswered, and the
    // responses of `[request, response]` never reached their calls.
    for response_first in [true, false] {
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let server = Server::new(Router::new(AskerImpl.into_service()));
        let handle = server.serve_stream(read, write, Framing::Lines);
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        let mut next = async || -> Value {
            let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
                .await
                .expect("a reply in time")
                .unwrap()
                .unwrap();
            serde_json::from_str(&line).unwrap()
        };
        client_write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"ask\",\"id\":\"a\"}\n")
            .await
            .unwrap();
        let question = next().await;
        assert_eq!(question["method"], "question", "{question}");
        let response = json!({"jsonrpc": "2.0", "result": "forty-two", "id": question["id"]});
        let request = json!({"jsonrpc": "2.0", "method": "ping", "id": "p"});
        let batch = match response_first {
            true => json!([response, request]),
            false => json!([request, response]),
        };
        client_write
            .write_all(format!("{batch}\n").as_bytes())
            .await
            .unwrap();
        let mut replies = vec![next().await, next().await];
        replies.sort_by_key(Value::is_object);
        assert_eq!(
            replies,
            [
                json!([{"jsonrpc": "2.0", "result": "pong", "id": "p"}]),
                json!({"jsonrpc": "2.0", "result": "forty-two", "id": "a"}),
            ],
            "response first: {response_first}"
        );
        client_write.shutdown().await.unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(10), handle.stopped())
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_one_request_over_a_connection_is_answered() {
    // Its reply is `[response]`: one response, handed to the waiting call
    // as the whole message, the array around it and all, which no call
    // could decode.
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let handle = Server::new(Router::new(AskerImpl.into_service())).serve_stream(
        read,
        write,
        Framing::Lines,
    );
    let (client_read, client_write) = tokio::io::split(client);
    let connection = StreamConnector::new(Framing::Lines).connect(client_read, client_write);
    for notifications in [0, 2] {
        let mut batch = Batch::new();
        let pong = batch.request::<String>("ping", None);
        for _ in 0..notifications {
            batch.notify(
                "update",
                Some(typed_rpc::client::Params::from_value(&[1]).unwrap()),
            );
        }
        let replies = connection.send_batch(&batch).await.unwrap();
        assert_eq!(
            replies.get(&pong).unwrap(),
            "pong",
            "with {notifications} notifications"
        );
    }
    drop(connection);
    tokio::time::timeout(std::time::Duration::from_secs(10), handle.stopped())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_silent_connection_is_closed_and_an_idle_one_later() {
    let limits = Limits::default()
        .header_timeout(Duration::from_millis(200))
        .idle_timeout(Duration::from_millis(600));
    let (handle, addr) = tcp(Framing::Lines, limits).await;

    let started = Instant::now();
    let mut silent = RawPeer::connect(addr).await;
    assert_eq!(silent.line().await, None, "closed for saying nothing");
    assert!(started.elapsed() < Duration::from_secs(2));

    let mut talker = RawPeer::connect(addr).await;
    assert_eq!(talker.add(1, 1, 1).await, 2);
    // Past the first-message deadline, the connection lives on until idle.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(talker.add(2, 2, 2).await, 4);
    assert_eq!(talker.line().await, None, "closed once idle");
    assert!(handle.shutdown().await);
}

/// A handler waiting on its own client gives its place among the requests
/// in flight back: with every place taken by such handlers, the reader
/// still reads on, so the client's answers (queued behind more requests)
/// reach them. Otherwise the connection would deadlock: its handlers wait
/// for answers it no longer reads.
#[tokio::test]
async fn handlers_waiting_on_their_client_never_stop_the_connection_reading_its_answers() {
    waiting_on_the_client_with_every_place_taken().await;
}

/// The same on a multi-threaded runtime, where requests always run as
/// tasks of their own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_waiting_on_their_client_never_stop_reading_on_many_threads() {
    waiting_on_the_client_with_every_place_taken().await;
}

async fn waiting_on_the_client_with_every_place_taken() {
    let (handle, addr) = tcp(Framing::Lines, Limits::default().max_in_flight(2)).await;
    let handlers = EditorHandlers {
        state: Arc::new(EditorState::default()),
        log_delay: Duration::ZERO,
    };
    let connector =
        StreamConnector::new(Framing::Lines).handlers(Router::new(handlers.into_service()));
    let client = LanguageClient::new(connector.connect_tcp(addr).await.unwrap());
    let hovers: Vec<_> = (0..12)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move { client.hover(format!("word{i}")).await })
        })
        .collect();
    let all = async {
        for (i, hover) in hovers.into_iter().enumerate() {
            assert_eq!(
                hover.await.unwrap().unwrap(),
                format!("word{i} (style=compact)")
            );
        }
    };
    tokio::time::timeout(Duration::from_secs(10), all)
        .await
        .expect("every hover answered: no deadlock");
    // The limit still holds for handlers that do not wait on the client.
    assert_eq!(client.add(1, 2).await.unwrap(), 3);
    drop(client);
    assert!(handle.shutdown().await);
}
