//! Streamable HTTP as a raw client sees it: a classic session's event
//! stream resumed with `Last-Event-ID` after the connection dropped, the
//! session's `GET` stream telling of a subscribed file's change, a
//! 2026-07-28 `subscriptions/listen`, `DELETE`, and the DNS-rebinding guard.

mod support;

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use support::{HttpServer, Scratch};

type Http = Client<HttpConnector, Full<Bytes>>;

fn http() -> Http {
    Client::builder(TokioExecutor::new()).build(HttpConnector::new())
}

/// A request to `url`: `method` (`POST` with `body`, or another verb),
/// with `headers`.
async fn send(
    http: &Http,
    url: &str,
    verb: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> http::Response<Incoming> {
    let mut request = http::Request::builder()
        .method(verb)
        .uri(url)
        .header("accept", "application/json, text/event-stream");
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = body.map_or_else(Bytes::new, |body| Bytes::from(body.to_string()));
    http.request(request.body(Full::new(body)).unwrap())
        .await
        .expect("the server answers")
}

/// Opens a classic session: its id.
async fn initialize(http: &Http, url: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let response = send(http, url, "POST", &[], Some(body)).await;
    assert_eq!(response.status(), 200);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = send(
        http,
        url,
        "POST",
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        Some(initialized),
    )
    .await;
    assert_eq!(accepted.status(), 202);
    id
}

/// Reads events from `body` until one whose data satisfies `done`: every
/// event read, as (id, data).
async fn events_until(body: &mut Incoming, done: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut events = Vec::new();
    let mut buffer = String::new();
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let field = |name: &str| {
                event
                    .lines()
                    .find_map(|line| line.strip_prefix(name).map(|v| v.trim_start().to_owned()))
                    .unwrap_or_default()
            };
            let (id, data) = (field("id:"), field("data:"));
            let finished = done(&data);
            events.push((id, data));
            if finished {
                return events;
            }
        }
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
            .expect("a frame");
        if let Some(bytes) = frame.data_ref() {
            buffer.push_str(&String::from_utf8_lossy(bytes));
        }
    }
}

#[tokio::test]
async fn a_dropped_stream_is_resumed_after_its_last_event_id() {
    let root = Scratch::new("http-resume");
    let server = HttpServer::start(&["--fixtures", "--root", root.path().to_str().unwrap()]);
    let http = http();
    let session = initialize(&http, &server.url).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"seconds": 0.6, "steps": 6}, "_meta": {"progressToken": "p"}}});
    let response = send(&http, &server.url, "POST", &headers, Some(call)).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    // The priming event (an id, no data), then the first progress report.
    let first = events_until(&mut body, |data| data.contains(r#""progress":1.0"#)).await;
    assert_eq!(first[0].1, "", "a priming event first: {first:?}");
    let (last_seen, _) = first.last().unwrap().clone();
    drop(body); // the connection is lost

    let resumed = send(
        &http,
        &server.url,
        "GET",
        &[("mcp-session-id", &session), ("last-event-id", &last_seen)],
        None,
    )
    .await;
    assert_eq!(resumed.status(), 200);
    let rest = events_until(&mut resumed.into_body(), |data| data.contains(r#""id":7"#)).await;
    let progress: Vec<&str> = rest
        .iter()
        .filter(|(_, data)| data.contains("notifications/progress"))
        .map(|(_, data)| data.as_str())
        .collect();
    assert_eq!(progress.len(), 5, "steps 2 to 6, none twice: {rest:?}");
    assert!(progress[0].contains(r#""progress":2.0"#));
    assert!(
        rest.last()
            .unwrap()
            .1
            .contains("waited 0.6 seconds in 6 steps")
    );
}

#[tokio::test]
async fn a_subscribed_file_s_change_arrives_on_the_session_stream_and_on_a_listen() {
    let root = Scratch::new("http-subscribe");
    let server = HttpServer::start(&["--root", root.path().to_str().unwrap()]);
    let http = http();
    let notes = format!(
        "file://{}/notes.txt",
        std::fs::canonicalize(root.path()).unwrap().display()
    );

    // Classic: resources/subscribe, then the session's GET stream.
    let session = initialize(&http, &server.url).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let stream = send(&http, &server.url, "GET", &headers, None).await;
    assert_eq!(stream.status(), 200);
    let second = send(&http, &server.url, "GET", &headers, None).await;
    assert_eq!(second.status(), 409, "one GET stream per session");
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": notes}});
    let subscribed = send(&http, &server.url, "POST", &headers, Some(subscribe)).await;
    assert_eq!(subscribed.status(), 200);

    // 2026-07-28: subscriptions/listen asking for the same file.
    let listen = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": [notes], "toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let listening = send(
        &http,
        &server.url,
        "POST",
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "subscriptions/listen"),
        ],
        Some(listen),
    )
    .await;
    assert_eq!(listening.headers()["content-type"], "text/event-stream");
    let mut listening = listening.into_body();
    let ack = events_until(&mut listening, |data| data.contains("acknowledged")).await;
    let ack: Value = serde_json::from_str(&ack.last().unwrap().1).unwrap();
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!([notes])
    );

    tokio::time::sleep(Duration::from_millis(300)).await;
    std::fs::write(root.path().join("notes.txt"), "changed\n").unwrap();

    let mut stream = stream.into_body();
    let updated = events_until(&mut stream, |data| data.contains("resources/updated")).await;
    assert!(updated.last().unwrap().1.contains(&notes));
    let updated = events_until(&mut listening, |data| data.contains("resources/updated")).await;
    let updated: Value = serde_json::from_str(&updated.last().unwrap().1).unwrap();
    assert_eq!(updated["params"]["uri"], notes);
    assert_eq!(
        updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );

    // DELETE ends the session: its id is then unknown.
    let deleted = send(
        &http,
        &server.url,
        "DELETE",
        &[("mcp-session-id", &session)],
        None,
    )
    .await;
    assert!(deleted.status().is_success());
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let gone = send(&http, &server.url, "POST", &headers, Some(ping)).await;
    assert_eq!(gone.status(), 404);
}

#[tokio::test]
async fn another_host_or_origin_is_refused() {
    let root = Scratch::new("http-origin");
    let server = HttpServer::start(&["--root", root.path().to_str().unwrap()]);
    let http = http();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let evil = send(
        &http,
        &server.url,
        "POST",
        &[("origin", "http://evil.example.com")],
        Some(ping.clone()),
    )
    .await;
    assert_eq!(evil.status(), 403);
    let own = format!("http://{}", server.addr);
    let fine = send(&http, &server.url, "POST", &[("origin", &own)], Some(ping)).await;
    assert_eq!(fine.status(), 200);
    let body = fine.into_body().collect().await.unwrap().to_bytes();
    assert!(String::from_utf8_lossy(&body).contains("protocolVersion"));
}
