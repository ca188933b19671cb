//! Server-Sent Events over HTTP, read by our client and by a raw peer.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use typed_rpc::Router;
use typed_rpc::client::Subscription;
use typed_rpc::transport::{Limits, Server, ServerHandle};

use crate::api::{Server as TickerServer, Ticker, TickerClient, pretty_item, settles};
use crate::connect;

pub async fn serve(server: TickerServer, limits: Limits) -> ServerHandle {
    Server::new(Router::new(server.into_service()))
        .limits(limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

/// What a raw HTTP/1.0 peer reads back: the status, the content type and
/// the whole body (HTTP/1.0: delimited by the close, not chunked).
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub cache_control: String,
    pub body: String,
}

async fn post(handle: &ServerHandle, accept: &str, body: &str) -> Answer {
    post_accepting(handle, Some(accept), body).await
}

/// `body` posted with `accept` as the `Accept` header, or none.
pub async fn post_accepting(handle: &ServerHandle, accept: Option<&str>, body: &str) -> Answer {
    let mut stream = tokio::net::TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let accept = accept.map_or(String::new(), |accept| format!("accept: {accept}\r\n"));
    let request = format!(
        "POST / HTTP/1.0\r\ncontent-type: application/json\r\n{accept}content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(connect::PATIENCE, stream.read_to_end(&mut raw))
        .await
        .expect("the stream ends")
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let header = |name: &str| {
        head.lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or("")
            .to_owned()
    };
    Answer {
        status: head[9..12].parse().unwrap(),
        content_type: header("content-type"),
        cache_control: header("cache-control"),
        body: body.to_owned(),
    }
}

/// The data of each event in `body`, its `data:` lines joined by `\n` as
/// the SSE specification says.
pub fn events(body: &str) -> Vec<serde_json::Value> {
    body.split("\n\n")
        .filter(|event| event.starts_with("data: "))
        .map(|event| {
            let lines: Vec<&str> = event
                .lines()
                .map(|line| line.strip_prefix("data: ").expect("only data lines"))
                .collect();
            serde_json::from_str(&lines.join("\n")).unwrap()
        })
        .collect()
}

#[tokio::test]
async fn our_client_reads_every_item_in_order() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.count(3, 8).await.unwrap();
    let mut seen = Vec::new();
    while let Some(item) = items.next().await {
        seen.push(item.unwrap());
    }
    assert_eq!(seen, [3, 4, 5, 6, 7]);
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn each_item_is_one_event_holding_a_whole_response_with_the_request_id() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"count","params":[0,3],"id":"s-1"}"#;
    let answer = post(&handle, "application/json, text/event-stream", call).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "text/event-stream");
    assert_eq!(answer.cache_control, "no-store");
    let expected: Vec<serde_json::Value> = (0..3)
        .map(|n| serde_json::json!({"jsonrpc": "2.0", "result": n, "id": "s-1"}))
        .collect();
    assert_eq!(events(&answer.body), expected);
}

/// Items of raw JSON with line breaks (`\r\n`) inside: each stays one
/// event, its lines as `data:` lines, and comes back whole.
#[tokio::test]
async fn items_with_line_breaks_stay_whole_events() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"pretty","params":[3],"id":4}"#;
    let answer = post(&handle, "text/event-stream", call).await;
    assert!(
        answer
            .body
            .contains("\"result\":{\ndata: \ndata:   \"lines\": [\ndata: \n"),
        "each line break ends a data line: {}",
        answer.body
    );
    let expected: Vec<serde_json::Value> = (0..3)
        .map(|n| serde_json::json!({"jsonrpc": "2.0", "result": pretty_item(n), "id": 4}))
        .collect();
    assert_eq!(events(&answer.body), expected);
    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.pretty(3).await.unwrap();
    for n in 0..3 {
        let item = items.next().await.unwrap().unwrap();
        let item: serde_json::Value = serde_json::from_str(item.get()).unwrap();
        assert_eq!(item, pretty_item(n));
    }
    assert!(items.next().await.is_none());
}

/// A long stream crosses many chunks, and chunk buffers are reused once
/// written: every item arrives, in order, once.
#[tokio::test]
async fn a_long_stream_arrives_whole_and_in_order() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.count(0, 100_000).await.unwrap();
    let mut next = 0;
    while let Some(item) = items.next().await {
        assert_eq!(item.unwrap(), next);
        next += 1;
    }
    assert_eq!(next, 100_000);
}

#[tokio::test]
async fn an_error_before_the_first_item_is_a_plain_json_reply() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"refused","id":2}"#;
    let answer = post(&handle, "text/event-stream", call).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(
        answer.body,
        r#"{"jsonrpc":"2.0","error":{"code":-32051,"message":"Not now"},"id":2}"#
    );
    let client = TickerClient::new(connect::http(&handle));
    let err = client.refused().await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32051);
}

#[tokio::test]
async fn an_error_item_is_an_error_response_and_ends_the_stream() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"failing","params":[2],"id":3}"#;
    let answer = post(&handle, "text/event-stream", call).await;
    let events = events(&answer.body);
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[1]["result"], 1);
    assert_eq!(events[2]["error"]["code"], -32050);
    assert_eq!(events[2]["id"], 3);

    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.failing(2).await.unwrap();
    assert_eq!(items.next().await.unwrap().unwrap(), 0);
    assert_eq!(items.next().await.unwrap().unwrap(), 1);
    let err = items.next().await.unwrap().unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32050);
    assert!(items.next().await.is_none());
}

#[tokio::test]
async fn without_event_stream_acceptance_a_streaming_call_is_refused_with_a_reason() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"count","params":[0,3],"id":4}"#;
    let answer = post(&handle, "application/json", call).await;
    let reply: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(reply["error"]["code"], -32600);
    let reason = reply["error"]["data"]["reason"].as_str().unwrap();
    assert!(reason.contains("text/event-stream"), "{reason}");
    // Nor in a batch.
    let batch = format!("[{call}]");
    let answer = post(&handle, "text/event-stream", &batch).await;
    let reply: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(reply[0]["error"]["code"], -32600, "{reply}");
}

#[tokio::test]
async fn keep_alive_comments_come_while_the_stream_is_quiet() {
    let limits = Limits::default().keep_alive_interval(Duration::from_millis(50));
    let handle = serve(TickerServer::default(), limits).await;
    let mut stream = tokio::net::TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let call = r#"{"jsonrpc":"2.0","method":"forever","params":[400],"id":5}"#;
    let request = format!(
        "POST / HTTP/1.0\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n{call}",
        call.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0; 1024];
    while !String::from_utf8_lossy(&seen).contains(": keep-alive\n\n") {
        let n = tokio::time::timeout(connect::PATIENCE, stream.read(&mut buffer))
            .await
            .expect("a keep-alive comes")
            .unwrap();
        assert!(n > 0, "the stream ended");
        seen.extend_from_slice(&buffer[..n]);
    }
}

#[tokio::test]
async fn a_handler_s_notifications_come_as_events_before_its_reply() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"work","params":[2],"id":6}"#;
    let answer = post(&handle, "application/json, text/event-stream", call).await;
    assert_eq!(answer.content_type, "text/event-stream");
    let events = events(&answer.body);
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "progress");
    assert_eq!(events[1]["params"]["step"], 1);
    assert_eq!(
        events[2],
        serde_json::json!({"jsonrpc": "2.0", "result": "done", "id": 6})
    );
    // Without event-stream acceptance the handler cannot notify, and says so.
    let answer = post(&handle, "application/json", call).await;
    let reply: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(reply["error"]["code"], -32052);
    // Nothing to notify: plain JSON even when events are accepted.
    let quiet = r#"{"jsonrpc":"2.0","method":"work","params":[0],"id":7}"#;
    let answer = post(&handle, "text/event-stream", quiet).await;
    assert_eq!(answer.content_type, "application/json");
}

/// A server whose `forever` stream is running over HTTP, its first item
/// read: the server, its count of producers alive, and the stream.
async fn forever_running() -> (ServerHandle, Arc<AtomicUsize>, Subscription<u64>) {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = serve(server, Limits::default()).await;
    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.forever(5).await.unwrap();
    assert_eq!(items.next().await.unwrap().unwrap(), 0);
    (handle, alive, items)
}

#[tokio::test]
async fn a_client_that_leaves_mid_stream_drops_the_producer() {
    let (_handle, alive, items) = forever_running().await;
    assert_eq!(alive.load(Ordering::SeqCst), 1);
    drop(items);
    assert!(settles(&alive, 0).await, "the producer is dropped");
}

#[tokio::test]
async fn a_graceful_shutdown_ends_the_stream_cleanly_and_says_so() {
    let (handle, alive, mut items) = forever_running().await;
    let stopped = tokio::spawn(async move { handle.shutdown().await });
    // The items up to the end arrive whole, in order, then the event that
    // says the shutdown cut the stream, then the end.
    let mut expected = 1;
    let mut cut = None;
    while let Some(item) = tokio::time::timeout(connect::PATIENCE, items.next())
        .await
        .expect("the stream ends")
    {
        assert!(cut.is_none(), "nothing after the shutdown's event");
        match item {
            Ok(item) => assert_eq!(item, expected),
            Err(err) => cut = Some(err),
        }
        expected += 1;
    }
    assert!(cut.expect("the cut is said").is_shutdown());
    assert!(
        tokio::time::timeout(connect::PATIENCE, stopped)
            .await
            .unwrap()
            .unwrap()
    );
    assert!(settles(&alive, 0).await);
}

#[tokio::test]
async fn a_producer_that_panics_ends_its_event_stream_with_an_internal_error() {
    let handle = serve(TickerServer::default(), Limits::default()).await;
    let call = r#"{"jsonrpc":"2.0","method":"panicky","id":8}"#;
    let answer = post(&handle, "text/event-stream", call).await;
    let events = events(&answer.body);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["result"], 0);
    assert_eq!(events[1]["error"]["code"], -32603);
    let client = TickerClient::new(connect::http(&handle));
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn a_stream_outlives_the_header_timeout_of_its_connection() {
    let limits = Limits::default().header_timeout(Duration::from_millis(200));
    let handle = serve(TickerServer::default(), limits).await;
    let client = TickerClient::new(connect::http(&handle));
    let mut items = client.forever(20).await.unwrap();
    // Five header timeouts' worth of items, none of them cut.
    for expected in 0..50 {
        let item = tokio::time::timeout(connect::PATIENCE, items.next()).await;
        assert_eq!(item.unwrap().unwrap().unwrap(), expected);
    }
}
