//! HTTP content negotiation for streaming methods: what each everyday
//! client's `Accept` gets, and the per-method fallback of a client that
//! takes JSON and not events.

use typed_rpc::Router;
use typed_rpc::transport::{Limits, ServerHandle};

use crate::api::{Server as TickerServer, Ticker};
use crate::sse::{Answer, events, post_accepting, serve};

const COUNT: &str = r#"{"jsonrpc":"2.0","method":"count","params":[0,3],"id":1}"#;

async fn server() -> ServerHandle {
    serve(TickerServer::default(), Limits::default()).await
}

/// The results of an event stream's events, in order.
fn streamed(answer: &Answer) -> Vec<serde_json::Value> {
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.content_type, "text/event-stream",
        "an event stream: {}",
        answer.body
    );
    events(&answer.body)
        .into_iter()
        .map(|event| event["result"].clone())
        .collect()
}

/// A plain JSON reply.
fn json(answer: &Answer) -> serde_json::Value {
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.content_type, "application/json",
        "plain JSON: {}",
        answer.body
    );
    serde_json::from_str(&answer.body).unwrap()
}

#[tokio::test]
async fn clients_that_accept_events_by_wildcard_or_silence_get_the_stream() {
    let handle = server().await;
    for accept in [
        // curl's default, and most HTTP libraries' (httpx, requests, fetch).
        Some("*/*"),
        None,
        Some("text/*"),
        Some("application/json, text/event-stream"),
        Some("application/json;q=0.9, text/event-stream;q=0.1"),
        // A browser navigating.
        Some("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
    ] {
        let answer = post_accepting(&handle, accept, COUNT).await;
        assert_eq!(streamed(&answer), [0, 1, 2], "Accept: {accept:?}");
    }
}

#[tokio::test]
async fn a_client_that_takes_json_and_not_events_gets_the_method_s_refusal() {
    let handle = server().await;
    for accept in [
        "application/json",
        "application/json; charset=utf-8",
        "text/event-stream;q=0, */*",
        "*/*;q=0",
    ] {
        let reply = json(&post_accepting(&handle, Some(accept), COUNT).await);
        assert_eq!(reply["error"]["code"], -32600, "Accept: {accept}: {reply}");
        let reason = reply["error"]["data"]["reason"].as_str().unwrap();
        assert!(
            reason.contains("Accept") && reason.contains("text/event-stream"),
            "{reason}"
        );
    }
}

#[tokio::test]
async fn or_the_last_item_as_a_plain_result_when_the_method_falls_back_to_it() {
    let handle = server().await;
    let job = r#"{"jsonrpc":"2.0","method":"job","params":[4,false],"id":"j"}"#;
    let reply = json(&post_accepting(&handle, Some("application/json"), job).await);
    assert_eq!(
        reply,
        serde_json::json!({"jsonrpc": "2.0", "result": 3, "id": "j"})
    );
    // A client that takes events still gets every item.
    let answer = post_accepting(&handle, Some("*/*"), job).await;
    assert_eq!(streamed(&answer), [0, 1, 2, 3]);
}

#[tokio::test]
async fn the_last_item_fallback_answers_an_error_item_and_an_empty_stream_with_errors() {
    let handle = server().await;
    let failing = r#"{"jsonrpc":"2.0","method":"job","params":[2,true],"id":2}"#;
    let reply = json(&post_accepting(&handle, Some("application/json"), failing).await);
    assert_eq!(reply["error"]["code"], -32053, "{reply}");
    let empty = r#"{"jsonrpc":"2.0","method":"job","params":[0,false],"id":3}"#;
    let reply = json(&post_accepting(&handle, Some("application/json"), empty).await);
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(
        reply["error"]["data"]["reason"],
        "the stream ended without an item"
    );
}

#[tokio::test]
async fn in_a_batch_and_in_process_a_streaming_call_falls_back_as_its_method_says() {
    let handle = server().await;
    let batch = r#"[{"jsonrpc":"2.0","method":"job","params":[3,false],"id":1},
                    {"jsonrpc":"2.0","method":"count","params":[0,3],"id":2}]"#;
    let reply = json(&post_accepting(&handle, Some("*/*"), batch).await);
    assert_eq!(reply[0]["result"], 2, "{reply}");
    assert_eq!(reply[1]["error"]["code"], -32600, "{reply}");
    let reason = reply[1]["error"]["data"]["reason"].as_str().unwrap();
    assert!(reason.contains("batch"), "{reason}");

    let router = Router::new(TickerServer::default().into_service());
    let job = br#"{"jsonrpc":"2.0","method":"job","params":[5,false],"id":9}"#;
    assert_eq!(
        router.handle(job).await.unwrap(),
        r#"{"jsonrpc":"2.0","result":4,"id":9}"#
    );
}

#[tokio::test]
async fn a_method_that_does_not_stream_answers_a_wildcard_client_with_plain_json() {
    let handle = server().await;
    let ping = r#"{"jsonrpc":"2.0","method":"ping","id":1}"#;
    for accept in [Some("*/*"), None, Some("text/*")] {
        let reply = json(&post_accepting(&handle, accept, ping).await);
        assert_eq!(reply["result"], "pong");
    }
    // Progress notifications go only to a client that names events: one
    // that sent `*/*` expects the JSON reply, and the handler is told it
    // cannot notify.
    let work = r#"{"jsonrpc":"2.0","method":"work","params":[1],"id":2}"#;
    let reply = json(&post_accepting(&handle, Some("*/*"), work).await);
    assert_eq!(reply["error"]["code"], -32052, "{reply}");
    let answer = post_accepting(&handle, Some("text/event-stream"), work).await;
    assert_eq!(answer.content_type, "text/event-stream");
}
