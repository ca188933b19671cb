//! A streaming method called by everyday HTTP clients with their own
//! default headers: httpx (`Accept: */*`) and the curl binary (`*/*` too)
//! get its events; a client that takes JSON and not events gets the
//! method's fallback.

use std::process::Command;

use serde_json::{Value, json};
use typed_rpc::Router;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc_test_support::debian;

use super::{python, report};

#[allow(dead_code)] // the streaming tests' API: only `count` and `job` are called here
#[path = "../streaming/api.rs"]
mod ticker;

use ticker::{Server as Tickers, Ticker};

/// The streaming test API served over HTTP on a runtime of its own, for
/// the foreign client to call while the test waits for it.
fn serve() -> (tokio::runtime::Runtime, ServerHandle, String) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let router = Router::new(Tickers::default().into_service());
    let handle = runtime
        .block_on(Server::new(router).serve_http("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/", handle.local_addr().unwrap());
    (runtime, handle, url)
}

#[test]
fn httpx_s_default_accept_gets_the_events_and_json_alone_the_fallback() {
    let (_runtime, _handle, url) = serve();
    let report = report(python("httpx_stream.py", &[&url]));
    assert_eq!(report["default_accept"], "*/*");
    assert_eq!(
        report["default"],
        json!({"status": 200, "content_type": "text/event-stream", "results": [0, 1, 2]})
    );
    let refused = &report["json_only_refused"];
    assert_eq!(refused["content_type"], "application/json");
    assert_eq!(refused["reply"]["error"]["code"], -32600, "{refused}");
    assert_eq!(
        report["json_only_last_item"],
        json!({"content_type": "application/json",
               "reply": {"jsonrpc": "2.0", "result": 3, "id": 3}})
    );
}

/// Debian's `curl`, installed as root when it is missing.
fn curl() -> Command {
    Command::new(debian::binary("curl", "/usr/bin/curl").unwrap())
}

/// What `curl` prints for a `POST` of `body` with `headers`: the response
/// headers, a blank line, the body.
fn curl_post(url: &str, body: &Value, headers: &[&str]) -> (String, String) {
    let mut command = curl();
    command.args(["--silent", "--show-error", "--include", "--max-time", "10"]);
    command.args(["--header", "content-type: application/json"]);
    for header in headers {
        command.args(["--header", header]);
    }
    let output = command
        .args(["--data", &body.to_string(), url])
        .output()
        .unwrap();
    assert!(output.status.success(), "curl failed: {output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("headers, then a body");
    (head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn curl_s_default_accept_gets_the_events_and_json_alone_the_fallback() {
    let (_runtime, _handle, url) = serve();
    let count = json!({"jsonrpc": "2.0", "method": "count", "params": [0, 3], "id": 1});
    let (head, body) = curl_post(&url, &count, &[]);
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    let results: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<Value>(data).unwrap()["result"].clone())
        .collect();
    assert_eq!(results, [0, 1, 2], "{body}");

    let job = json!({"jsonrpc": "2.0", "method": "job", "params": [2, false], "id": 2});
    let (head, body) = curl_post(&url, &job, &["accept: application/json"]);
    assert!(head.contains("content-type: application/json"), "{head}");
    assert_eq!(body, r#"{"jsonrpc":"2.0","result":1,"id":2}"#);
}
