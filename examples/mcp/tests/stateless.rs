//! The 2026-07-28 generation needs no session: one client's successive
//! requests, sent alternately to two `mcp-server` processes, all succeed;
//! even a tool that asks for input over three rounds, each round served
//! by the other process, as both sign their request state with one
//! secret (`--state-secret`). A process with another secret refuses the
//! state, as it must.

mod support;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use support::{HttpServer, Scratch};

type Http = Client<HttpConnector, Full<Bytes>>;

/// Sends the 2026-07-28 request `method` with `params` to `url`: its HTTP
/// status and JSON-RPC response.
async fn send(http: &Http, url: &str, id: u64, method: &str, mut params: Value) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "alternating", "version": "1"},
    });
    let name = params["name"].as_str().map(str::to_owned);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = http::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = http.request(request).await.expect("the server answers");
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).expect("a JSON-RPC response"),
    )
}

fn elicited(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

#[tokio::test]
async fn requests_alternate_between_two_processes_with_no_session() {
    let root = Scratch::new("stateless");
    let root_path = root.path().to_str().unwrap();
    let shared = [
        "--fixtures",
        "--root",
        root_path,
        "--state-secret",
        "one secret for the fleet",
    ];
    let (a, b) = (HttpServer::start(&shared), HttpServer::start(&shared));
    let http: Http = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let servers = [&a.url, &b.url];

    let (status, discovered) = send(&http, servers[0], 1, "server/discover", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(discovered["result"]["supportedVersions"][0], "2026-07-28");
    let (_, listed) = send(&http, servers[1], 2, "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].as_array().unwrap().len() > 30);
    let (_, added) = send(
        &http,
        servers[0],
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    )
    .await;
    assert_eq!(added["result"]["content"][0]["text"], "3.0");

    // Three rounds of one call, each on the other process.
    let call = |responses: Value, state: Value| {
        let mut params = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
        if !responses.is_null() {
            params["inputResponses"] = responses;
        }
        if !state.is_null() {
            params["requestState"] = state;
        }
        params
    };
    let (_, first) = send(
        &http,
        servers[1],
        4,
        "tools/call",
        call(Value::Null, Value::Null),
    )
    .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"]["inputRequests"]["step1"].is_object());
    let state = first["result"]["requestState"].clone();
    let (_, second) = send(
        &http,
        servers[0],
        5,
        "tools/call",
        call(json!({"step1": elicited("name", "Ada")}), state),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    assert!(second["result"]["inputRequests"]["step2"].is_object());
    let state = second["result"]["requestState"].clone();
    let (_, third) = send(
        &http,
        servers[1],
        6,
        "tools/call",
        call(json!({"step2": elicited("color", "green")}), state.clone()),
    )
    .await;
    assert_eq!(
        third["result"]["content"][0]["text"], "Multi-round complete for Ada who likes green",
        "{third}"
    );

    // A process that signs with another secret cannot open that state.
    let stranger = HttpServer::start(&["--fixtures", "--root", root_path]);
    let (status, refused) = send(
        &http,
        &stranger.url,
        7,
        "tools/call",
        call(json!({"step2": elicited("color", "green")}), state),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState")
    );
}
