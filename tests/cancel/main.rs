//! Cancellation: a peer's cancel notification (the LSP and MCP presets, and
//! our own client's), a handler that watches its cancellation, and every
//! other way a handler is given up on: its connection closing, its HTTP
//! client leaving, the request timeout and the shutdown deadline. Each is
//! checked from the server's side by a drop guard in the handler.
//!
//! vscode-jsonrpc's `CancellationTokenSource` is in tests/interop.

// Not every transport's client is used here.
#[allow(dead_code)]
#[path = "../support/connect.rs"]
mod connect;
#[path = "../support/waiter.rs"]
mod waiter;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{CancelPolicy, Router};
use waiter::{Probe, Waiter, WaiterClient, Waits};

use connect::PATIENCE;

/// A router over [`Waits`] with `policy`, and the probe of its handlers.
fn router(policy: Option<CancelPolicy>) -> (Router, Waits) {
    timed_router(policy, None)
}

/// The same, its requests timing out after `timeout`.
fn timed_router(policy: Option<CancelPolicy>, timeout: Option<Duration>) -> (Router, Waits) {
    let waits = Waits::default();
    let mut builder = Router::builder().service(waits.clone().into_service());
    if let Some(policy) = policy {
        builder = builder.cancel_notification(policy);
    }
    if let Some(timeout) = timeout {
        builder = builder.request_timeout(timeout);
    }
    (builder.build().unwrap(), waits)
}

async fn serve_tcp(router: Router, limits: Limits) -> ServerHandle {
    Server::new(router)
        .limits(limits)
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap()
}

/// A server of `router` on TCP, and a peer connected to it.
async fn session(router: Router, limits: Limits) -> (ServerHandle, Peer) {
    let handle = serve_tcp(router, limits).await;
    let peer = Peer::connect(handle.local_addr().unwrap()).await;
    (handle, peer)
}

/// Ends a session: the peer goes away, and the server shuts down in time,
/// nothing left running.
async fn hang_up_and_shut_down(peer: Peer, handle: ServerHandle) {
    drop(peer);
    assert!(handle.shutdown().await);
}

/// A newline-delimited TCP peer that writes JSON by hand.
struct Peer {
    lines: tokio::io::Lines<BufReader<OwnedReadHalf>>,
    writer: OwnedWriteHalf,
}

impl Peer {
    async fn connect(addr: SocketAddr) -> Self {
        let (read, writer) = TcpStream::connect(addr).await.unwrap().into_split();
        Peer {
            lines: BufReader::new(read).lines(),
            writer,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    async fn call(&mut self, id: Value, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id}))
            .await;
    }

    /// Calls `method`, the first call of `waits`'s handlers, and waits
    /// until its handler has started.
    async fn start_first(&mut self, waits: &Waits, id: Value, method: &str, params: Value) {
        self.call(id, method, params).await;
        assert!(waits.probe.until(|p| p.started() == 1).await);
    }

    async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// The next message from the server.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("a message within the patience")
            .unwrap()
            .expect("the connection is open");
        serde_json::from_str(&line).unwrap()
    }
}

fn cancelled_32800(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": -32800, "message": "Request cancelled"}, "id": id})
}

fn pong(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "result": "pong", "id": id})
}

/// Waits until the one handler is dropped, and asserts it never returned.
async fn one_dropped(probe: &Probe) {
    assert!(
        probe.until(|p| p.dropped() == 1).await,
        "the handler is dropped"
    );
    assert_dropped(probe, 1);
}

/// [`one_dropped`], then a clean shutdown of the server.
async fn one_dropped_then_shut_down(probe: &Probe, handle: ServerHandle) {
    one_dropped(probe).await;
    assert!(handle.shutdown().await);
}

#[track_caller]
fn assert_dropped(probe: &Probe, count: u64) {
    assert_eq!(probe.dropped(), count, "handlers dropped");
    assert_eq!(probe.finished(), 0, "no handler returned");
}

/// Asserts the one cancelled handler is dropped and nothing more is
/// answered for it (the next message is the reply to a ping), then hangs up.
async fn dropped_and_not_answered(mut peer: Peer, waits: &Waits, handle: ServerHandle) {
    one_dropped(&waits.probe).await;
    peer.call(json!(2), "ping", json!([])).await;
    assert_eq!(peer.next().await, pong(2));
    hang_up_and_shut_down(peer, handle).await;
}

/// The LSP preset over a connection: `$/cancelRequest` drops the handler
/// and the request is answered `-32800`, once. With one request in flight
/// at most, the ping after it shows that the cancel freed its place.
async fn lsp_cancel_answers_and_drops() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let (handle, mut peer) = session(router, Limits::default().max_in_flight(1)).await;
    peer.start_first(&waits, json!(1), "wait", json!([])).await;

    peer.notify("$/cancelRequest", json!({"id": 1})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!(1)));
    dropped_and_not_answered(peer, &waits, handle).await;
}

#[tokio::test]
async fn lsp_cancel_answers_32800_and_drops_the_handler() {
    lsp_cancel_answers_and_drops().await;
}

/// On a multi-threaded runtime every request runs as a task from the start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lsp_cancel_answers_32800_and_drops_the_handler_on_many_threads() {
    lsp_cancel_answers_and_drops().await;
}

#[tokio::test]
async fn mcp_cancel_drops_the_handler_and_answers_nothing() {
    let (router, waits) = router(Some(CancelPolicy::mcp()));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!("call-a"), "wait", json!({}))
        .await;

    peer.notify(
        "notifications/cancelled",
        json!({"requestId": "call-a", "reason": "the user gave up"}),
    )
    .await;
    // No answer for `call-a` at all.
    dropped_and_not_answered(peer, &waits, handle).await;
}

#[tokio::test]
async fn a_cancel_for_an_unknown_or_finished_id_is_ignored() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let (handle, mut peer) = session(router, Limits::default()).await;
    // A request that waited and has finished, and one that finished inline.
    peer.call(json!(1), "wait", json!([10])).await;
    assert_eq!(
        peer.next().await,
        json!({"jsonrpc": "2.0", "result": "done", "id": 1})
    );
    peer.call(json!(2), "ping", json!([])).await;
    assert_eq!(peer.next().await, pong(2));
    // One still running, which a cancel for another id must not touch.
    peer.call(json!("still"), "wait", json!([])).await;
    assert!(waits.probe.until(|p| p.started() == 2).await);

    for id in [json!(1), json!(2), json!(99), json!("1"), json!(null)] {
        peer.notify("$/cancelRequest", json!({"id": id})).await;
    }
    peer.notify("$/cancelRequest", json!({})).await;
    peer.notify("$/cancelRequest", json!([1])).await;

    peer.call(json!(3), "ping", json!([])).await;
    assert_eq!(peer.next().await, pong(3), "nothing answered the cancels");
    assert_eq!(waits.probe.dropped(), 0, "no handler was dropped");
    // The running one is still cancellable.
    peer.notify("$/cancelRequest", json!({"id": "still"})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!("still")));
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn without_a_policy_a_cancel_is_an_ordinary_notification() {
    let (router, waits) = router(None);
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(1), "wait", json!([200]))
        .await;
    peer.notify("$/cancelRequest", json!({"id": 1})).await;
    assert_eq!(
        peer.next().await,
        json!({"jsonrpc": "2.0", "result": "done", "id": 1}),
        "the request ran to its end"
    );
    assert_eq!(waits.probe.dropped(), 0);
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn a_cancel_is_acted_on_ahead_of_the_notifications_queued_before_it() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let (_handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(1), "wait", json!([])).await;
    // Notifications run one after another: a slow one holds up the next.
    peer.notify("slow_note", json!([2_000])).await;
    peer.notify("slow_note", json!([2_000])).await;
    let started = tokio::time::Instant::now();
    peer.notify("$/cancelRequest", json!({"id": 1})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!(1)));
    assert!(
        started.elapsed() < Duration::from_millis(1_500),
        "the cancel waited behind the notifications: {:?}",
        started.elapsed()
    );
    assert_dropped(&waits.probe, 1);
    // Not shut down: that would wait for the slow notifications to run.
}

#[tokio::test]
async fn a_handler_that_watches_its_cancellation_cleans_up_and_its_result_is_discarded() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(7), "wait_watching", json!([]))
        .await;
    peer.notify("$/cancelRequest", json!({"id": 7})).await;
    assert_eq!(
        peer.next().await,
        cancelled_32800(json!(7)),
        "the policy's answer, not the handler's `cleaned up`"
    );
    assert_eq!(waits.probe.cleaned(), 1, "the handler cleaned up first");
    assert_eq!(
        waits.probe.dropped(),
        0,
        "it returned within its grace period"
    );
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watching_handler_is_dropped_when_its_grace_period_ends() {
    let policy = CancelPolicy::mcp().grace_period(Duration::ZERO);
    let (router, waits) = router(Some(policy));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(7), "wait_watching", json!([]))
        .await;
    peer.notify("notifications/cancelled", json!({"requestId": 7}))
        .await;
    assert!(waits.probe.until(|p| p.dropped() == 1).await);
    assert_eq!(waits.probe.cleaned(), 0, "no time was left to clean up");
    peer.call(json!(8), "ping", json!([])).await;
    assert_eq!(
        peer.next().await,
        pong(8),
        "nothing answered the cancelled call"
    );
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn our_client_cancels_a_call_that_times_out_or_is_dropped() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let handle = serve_tcp(router, Limits::default()).await;
    let connection = connect::tcp(&handle)
        .await
        .with_cancel_notification(CancelPolicy::lsp());

    let impatient = WaiterClient::new(connection.clone().with_timeout(Duration::from_millis(50)));
    let err = impatient.wait(None).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    assert!(waits.probe.until(|p| p.dropped() == 1).await, "timed out");

    let client = WaiterClient::new(connection.with_timeout(PATIENCE));
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.wait(None).await }
    });
    assert!(waits.probe.until(|p| p.started() == 2).await);
    call.abort();
    assert!(waits.probe.until(|p| p.dropped() == 2).await, "dropped");
    assert_dropped(&waits.probe, 2);

    // The server's `-32800` for each found no call waiting, and the
    // connection goes on.
    assert_eq!(client.ping().await.unwrap(), "pong");
    drop(client);
    assert!(handle.shutdown().await);
}

/// A peer that records the methods it is sent and answers each call named
/// in `answered` with `"pong"`; its address, and what it saw once the
/// client has gone.
async fn recorder(
    answered: &'static [&'static str],
) -> (SocketAddr, tokio::task::JoinHandle<Vec<Value>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        let mut seen = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            if answered.iter().any(|method| message["method"] == *method) {
                let reply = json!({"jsonrpc": "2.0", "result": "pong", "id": message["id"]});
                write
                    .write_all(format!("{reply}\n").as_bytes())
                    .await
                    .unwrap();
            }
            seen.push(message);
        }
        seen
    });
    (addr, seen)
}

/// The calls of a connection whose own router has a cancel policy are
/// cancelled with it, without `with_cancel_notification`.
#[tokio::test]
async fn a_connection_cancels_its_calls_as_its_router_is_cancelled() {
    let (addr, seen) = recorder(&[]).await;
    let (handlers, _) = router(Some(CancelPolicy::lsp()));
    let connection = StreamConnector::new(Framing::Lines)
        .handlers(handlers)
        .connect_tcp(addr)
        .await
        .unwrap()
        .with_timeout(Duration::from_millis(50));
    let client = WaiterClient::new(connection);
    assert!(client.wait(None).await.unwrap_err().is_timeout());
    drop(client);
    let seen = tokio::time::timeout(PATIENCE, seen).await.unwrap().unwrap();
    assert_eq!(
        seen,
        [
            json!({"jsonrpc": "2.0", "id": 1, "method": "wait", "params": []}),
            json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}),
        ]
    );
}

#[tokio::test]
async fn a_call_answered_in_time_sends_no_cancel() {
    let (addr, seen) = recorder(&["ping"]).await;
    let connection = StreamConnector::new(Framing::Lines)
        .connect_tcp(addr)
        .await
        .unwrap()
        .with_cancel_notification(CancelPolicy::lsp());
    let client = WaiterClient::new(connection);
    assert_eq!(client.ping().await.unwrap(), "pong");
    assert_eq!(client.ping().await.unwrap(), "pong");
    drop(client);
    let seen = tokio::time::timeout(PATIENCE, seen).await.unwrap().unwrap();
    let methods: Vec<&Value> = seen.iter().map(|message| &message["method"]).collect();
    assert_eq!(
        methods,
        [&json!("ping"), &json!("ping")],
        "no `$/cancelRequest` for calls that were answered"
    );
}

#[tokio::test]
async fn a_websocket_client_that_closes_drops_the_handler() {
    let (router, waits) = router(None);
    let handle = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let client = WaiterClient::new(connect::websocket(&handle).await);
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.wait(None).await }
    });
    assert!(waits.probe.until(|p| p.started() == 1).await);
    call.abort();
    drop(client);
    one_dropped_then_shut_down(&waits.probe, handle).await;
}

#[tokio::test]
async fn a_tcp_peer_that_resets_the_connection_drops_the_handler() {
    let (router, waits) = router(None);
    let handle = serve_tcp(router, Limits::default()).await;
    let stream = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let mut stream = stream;
    stream
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"wait\",\"id\":1}\n")
        .await
        .unwrap();
    assert!(waits.probe.until(|p| p.started() == 1).await);
    // Closed with a zero linger, a socket resets (and, at zero, never
    // blocks on its drop, the reason the method is deprecated).
    #[allow(deprecated)]
    stream.set_linger(Some(Duration::ZERO)).unwrap();
    drop(stream);
    one_dropped_then_shut_down(&waits.probe, handle).await;
}

#[tokio::test]
async fn a_tcp_peer_that_half_closes_still_gets_its_reply() {
    let (router, waits) = router(None);
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.call(json!(1), "wait", json!([100])).await;
    peer.writer.shutdown().await.unwrap();
    assert_eq!(
        peer.next().await,
        json!({"jsonrpc": "2.0", "result": "done", "id": 1})
    );
    assert_eq!((waits.probe.finished(), waits.probe.dropped()), (1, 0));
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn an_http_client_that_goes_away_drops_the_handler() {
    let (router, waits) = router(None);
    let handle = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let mut stream = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","method":"wait","id":1}"#;
    let request = format!(
        "POST / HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    assert!(waits.probe.until(|p| p.started() == 1).await);
    drop(stream);
    assert!(
        waits.probe.until(|p| p.dropped() == 1).await,
        "the handler outlived its client"
    );
    assert_dropped(&waits.probe, 1);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn the_request_timeout_drops_the_handler() {
    let (router, waits) = timed_router(None, Some(Duration::from_millis(50)));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.call(json!(1), "wait", json!([])).await;
    let reply = peer.next().await;
    assert_eq!(reply["error"]["message"], "Request timed out", "{reply}");
    one_dropped(&waits.probe).await;
    hang_up_and_shut_down(peer, handle).await;
}

/// The JSON body of the answer to a `POST` of `body`.
async fn post(addr: SocketAddr, body: &str) -> Value {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST / HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response))
        .await
        .expect("an answer within the patience")
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}

/// The request timeout of the tests of `cx.cancelled()` at the timeout.
const TIMEOUT: Option<Duration> = Some(Duration::from_millis(100));

#[track_caller]
fn assert_timed_out(reply: &Value, id: Value) {
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(
        reply["error"]["message"], "Request timed out",
        "the timeout's answer, not the handler's `cleaned up`: {reply}"
    );
}

/// `Context::cancelled` resolves at the request timeout, with no cancel
/// policy at all: the handler cleans up within its grace period, and the
/// answer is still the timeout's.
#[tokio::test]
async fn the_request_timeout_tells_a_watching_handler_which_cleans_up() {
    let (router, waits) = timed_router(None, TIMEOUT);
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.call(json!(3), "wait_watching", json!([])).await;
    assert_timed_out(&peer.next().await, json!(3));
    assert_eq!(waits.probe.cleaned(), 1, "the handler cleaned up first");
    assert_eq!(waits.probe.dropped(), 0, "it returned within its grace");
    // The connection goes on.
    peer.call(json!(4), "ping", json!([])).await;
    assert_eq!(peer.next().await, pong(4));
    hang_up_and_shut_down(peer, handle).await;
}

/// Over HTTP, where no peer can cancel, and in a batch, whose other entry
/// is answered as usual.
#[tokio::test]
async fn the_request_timeout_tells_a_watching_handler_over_http_and_in_a_batch() {
    let (router, waits) = timed_router(None, TIMEOUT);
    let handle = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let replies = post(
        handle.local_addr().unwrap(),
        r#"[{"jsonrpc":"2.0","method":"wait_watching","id":1},{"jsonrpc":"2.0","method":"ping","id":2}]"#,
    )
    .await;
    let replies = replies.as_array().expect("a batch's replies");
    assert_eq!(replies.len(), 2, "{replies:?}");
    let by_id = |id: u64| replies.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_timed_out(&by_id(1), json!(1));
    assert_eq!(by_id(2), pong(2));
    assert_eq!(waits.probe.cleaned(), 1, "the handler cleaned up first");
    assert_eq!(waits.probe.dropped(), 0);
    assert!(handle.shutdown().await);
}

/// A handler that does not finish its cleanup in the grace period is
/// dropped, and the timeout still answers.
#[tokio::test]
async fn a_watching_handler_past_its_grace_after_the_timeout_is_dropped() {
    let (router, waits) = timed_router(
        Some(CancelPolicy::lsp().grace_period(Duration::ZERO)),
        TIMEOUT,
    );
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.call(json!(5), "wait_watching", json!([])).await;
    assert_timed_out(&peer.next().await, json!(5));
    assert!(waits.probe.until(|p| p.dropped() == 1).await);
    assert_eq!(waits.probe.cleaned(), 0, "no time was left to clean up");
    hang_up_and_shut_down(peer, handle).await;
}

/// Under a request timeout, the peer's cancel still reaches the handler
/// (which then gets the policy's grace) and is answered as the policy says.
#[tokio::test]
async fn a_peer_cancel_reaches_a_watching_handler_under_a_request_timeout() {
    let timeout = Some(Duration::from_secs(30));
    let (router, waits) = timed_router(Some(CancelPolicy::lsp()), timeout);
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(7), "wait_watching", json!([]))
        .await;
    peer.notify("$/cancelRequest", json!({"id": 7})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!(7)));
    assert_eq!(waits.probe.cleaned(), 1, "the handler cleaned up first");
    assert_eq!(waits.probe.dropped(), 0, "within the policy's grace");
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn the_shutdown_deadline_drops_the_handler() {
    let (router, waits) = router(None);
    let limits = Limits::default().shutdown_timeout(Duration::from_millis(100));
    let (handle, mut peer) = session(router, limits).await;
    peer.start_first(&waits, json!(1), "wait", json!([])).await;
    assert!(
        !handle.shutdown().await,
        "the shutdown did not finish in time"
    );
    one_dropped(&waits.probe).await;
}

/// A stream's end of input (stdio's stdin closing, or a TCP half close)
/// lets the requests already read answer, within the shutdown timeout:
/// a client gone for good does not keep its handlers running.
#[tokio::test]
async fn after_the_end_of_input_requests_answer_within_the_shutdown_timeout() {
    let (router, waits) = router(None);
    // One pipe each way, as stdin and stdout are.
    let (mut to_server, server_input) = tokio::io::duplex(1 << 16);
    let (server_output, from_server) = tokio::io::duplex(1 << 16);
    let handle = Server::new(router)
        .limits(Limits::default().shutdown_timeout(Duration::from_millis(300)))
        .serve_stream(server_input, server_output, Framing::Lines);
    for call in [
        json!({"jsonrpc": "2.0", "method": "wait", "params": [50], "id": 1}),
        json!({"jsonrpc": "2.0", "method": "wait", "id": 2}),
    ] {
        to_server
            .write_all(format!("{call}\n").as_bytes())
            .await
            .unwrap();
    }
    assert!(waits.probe.until(|p| p.started() == 2).await);
    drop(to_server);

    let mut replies = BufReader::new(from_server).lines();
    let reply = tokio::time::timeout(PATIENCE, replies.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&reply).unwrap(),
        json!({"jsonrpc": "2.0", "result": "done", "id": 1}),
        "the quick request answered after the end of input"
    );
    tokio::time::timeout(PATIENCE, handle.stopped())
        .await
        .expect("the server stopped once the shutdown timeout passed");
    assert_eq!((waits.probe.finished(), waits.probe.dropped()), (1, 1));
    assert_eq!(
        replies.next_line().await.unwrap(),
        None,
        "nothing for the request that was dropped"
    );
}

/// The same over WebSocket, with the MCP preset on both sides.
#[tokio::test]
async fn our_websocket_client_cancels_a_call_that_times_out() {
    let (router, waits) = router(Some(CancelPolicy::mcp()));
    let handle = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let connection = connect::websocket(&handle)
        .await
        .with_cancel_notification(CancelPolicy::mcp());
    let impatient = WaiterClient::new(connection.clone().with_timeout(Duration::from_millis(50)));
    assert!(impatient.wait(None).await.unwrap_err().is_timeout());
    one_dropped(&waits.probe).await;
    assert_eq!(WaiterClient::new(connection).ping().await.unwrap(), "pong");
    assert!(handle.shutdown().await);
}

/// Whether `message` is the `-32600` answer to a message with no usable id.
fn is_invalid_request(message: &Value) -> bool {
    message["error"]["code"] == -32600 && message["id"].is_null()
}

#[tokio::test]
async fn a_malformed_cancel_is_answered_as_an_invalid_request_and_cancels_nothing() {
    let (router, waits) = router(Some(CancelPolicy::lsp()));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(1), "wait", json!([])).await;
    // No `jsonrpc` member: not a notification, the same whether it goes
    // straight to the router (nothing queued) or is sorted at the reader
    // (behind a notification still running).
    let malformed = json!({"method": "$/cancelRequest", "params": {"id": 1}});
    peer.send(malformed.clone()).await;
    assert!(is_invalid_request(&peer.next().await));
    peer.notify("slow_note", json!([100])).await;
    peer.send(malformed).await;
    assert!(is_invalid_request(&peer.next().await));
    assert_eq!(waits.probe.dropped(), 0, "the request runs on");
    peer.notify("$/cancelRequest", json!({"id": 1})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!(1)));
    hang_up_and_shut_down(peer, handle).await;
}

#[tokio::test]
async fn a_notification_named_as_the_cancel_is_the_cancel_not_its_handler() {
    // The policy takes the method of one of the service's notifications.
    let policy = CancelPolicy::new("report", "id").answer_with(typed_rpc::ErrorObject::new(
        CancelPolicy::LSP_REQUEST_CANCELLED,
        "Request cancelled",
    ));
    let (router, waits) = router(Some(policy));
    let (handle, mut peer) = session(router, Limits::default()).await;
    peer.start_first(&waits, json!(1), "wait", json!([])).await;
    peer.notify("report", json!({"id": 1})).await;
    assert_eq!(peer.next().await, cancelled_32800(json!(1)));
    peer.notify("report", json!({"text": "no id"})).await;
    // Notifications run in order: had either run its handler, it would
    // have before this answer.
    peer.call(json!(2), "ping", json!([])).await;
    assert_eq!(peer.next().await, pong(2));
    let report = tokio::time::timeout(Duration::from_millis(50), waits.probe.report()).await;
    assert!(report.is_err(), "the handler never ran: {report:?}");
    hang_up_and_shut_down(peer, handle).await;
}
