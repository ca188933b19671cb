//! Clients nobody here wrote: ethers' WebSocketProvider subscribing to new
//! blocks, and eventsource-parser reading Server-Sent Events.

use std::time::Duration;

use typed_rpc::transport::Limits;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::{paths, process};

use crate::api::{Server as TickerServer, pretty_item, settles};

/// `node tests/streaming/npm/<script> <args>`, its pinned packages
/// installed, run to its end; its stdout as JSON.
fn node(script: &str, args: &[&str]) -> serde_json::Value {
    let packages =
        NodePackages::install(paths::workspace_root().join("tests/streaming/npm")).unwrap();
    let mut command = packages.node(script);
    command.args(args);
    let output = process::run(command, Duration::from_secs(60)).unwrap();
    assert!(output.success(), "node {script} failed:\n{}", output.stderr);
    serde_json::from_str(output.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", output.stdout))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eventsource_parser_reads_every_item_in_order() {
    let handle = crate::sse::serve(TickerServer::default(), Limits::default()).await;
    let url = format!("http://{}/", handle.local_addr().unwrap());
    let call = r#"{"jsonrpc":"2.0","method":"count","params":[10,14],"id":"x"}"#;
    let seen = tokio::task::spawn_blocking(move || node("sse.js", &[&url, call]))
        .await
        .unwrap();
    assert_eq!(seen["status"], 200);
    assert_eq!(seen["contentType"], "text/event-stream");
    let results: Vec<_> = seen["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            assert_eq!(event["id"], "x");
            event["result"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(results, [10, 11, 12, 13]);
}

/// What `sse.js` (eventsource-parser) reads of `call` posted to a ticker
/// served over HTTP.
async fn sse_js(call: &'static str) -> serde_json::Value {
    let handle = crate::sse::serve(TickerServer::default(), Limits::default()).await;
    let url = format!("http://{}/", handle.local_addr().unwrap());
    tokio::task::spawn_blocking(move || node("sse.js", &[&url, call]))
        .await
        .unwrap()
}

/// Items whose raw JSON holds line breaks: eventsource-parser joins each
/// event's `data:` lines back into the whole response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eventsource_parser_reads_items_with_line_breaks_whole() {
    let seen = sse_js(r#"{"jsonrpc":"2.0","method":"pretty","params":[2],"id":5}"#).await;
    let expected: Vec<_> = (0..2)
        .map(|n| serde_json::json!({"jsonrpc": "2.0", "result": pretty_item(n), "id": 5}))
        .collect();
    assert_eq!(seen["events"], serde_json::json!(expected), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eventsource_parser_reads_the_error_item_as_the_last_event() {
    let seen = sse_js(r#"{"jsonrpc":"2.0","method":"failing","params":[1],"id":9}"#).await;
    let events = seen["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{seen}");
    assert_eq!(events[0]["result"], 0);
    assert_eq!(events[1]["error"]["code"], -32050);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ethers_websocket_provider_receives_new_blocks_and_unsubscribes() {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = crate::subscriptions::serve_ws(server, Limits::default()).await;
    let url = format!("ws://{}/", handle.local_addr().unwrap());
    let blocks = tokio::task::spawn_blocking(move || node("new_heads.js", &[&url, "3"]))
        .await
        .unwrap();
    assert_eq!(blocks, serde_json::json!([1, 2, 3]));
    assert!(
        settles(&alive, 0).await,
        "unsubscribing stopped the producer"
    );
}
