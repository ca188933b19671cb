//! The official TypeScript SDK (`@modelcontextprotocol/sdk` 1.32, pinned in
//! `tests/js`) as a second client of `mcp-server`, over stdio and over
//! Streamable HTTP: `tests/js/ts_sdk_client.mjs` lists and calls tools
//! (progress, isError, a bad argument), answers the server's sampling and
//! elicitation requests, reads a resource and gets a prompt.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{HttpServer, Scratch, node, server_binary};

const LIMIT: Duration = Duration::from_secs(120);

fn check(report: &Value) {
    assert_eq!(report["server"]["name"], "typed-rpc-mcp");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for tool in [
        "list_files",
        "read_file",
        "search",
        "add",
        "slow",
        "fail",
        "test_sampling",
    ] {
        assert!(tools.contains(&tool), "{tool} listed: {tools:?}");
    }
    assert_eq!(
        report["add"],
        json!({"text": "5.5", "structured": {"result": 5.5}})
    );
    assert_eq!(report["slow"]["text"], "waited 0.3 seconds in 3 steps");
    assert_eq!(
        report["fail"],
        json!({"isError": true, "text": "This tool always fails"})
    );
    assert_eq!(report["badArgument"]["code"], -32602);
    assert_eq!(report["badArgument"]["data"]["param"], "b");
    assert_eq!(
        report["sampling"],
        "LLM response: TS answers: the capital of France?"
    );
    assert_eq!(
        report["elicitation"],
        r#"User response: action=accept, content={"response":"from TypeScript"}"#
    );
    assert!(
        report["resources"]
            .as_array()
            .unwrap()
            .contains(&json!("test://static-text"))
    );
    assert_eq!(
        report["read"],
        "This is the content of the static text resource."
    );
    assert_eq!(
        report["prompt"],
        "Prompt with arguments: arg1='x', arg2='y'"
    );
}

#[test]
fn the_typescript_sdk_over_stdio_and_streamable_http() {
    let root = Scratch::new("typescript");
    let root_path = root.path().to_str().unwrap();

    let report = node(
        "ts_sdk_client.mjs",
        &["stdio", server_binary(), root_path],
        LIMIT,
    );
    check(&report);
    // The SDK hands notifications to their handlers a microtask late and
    // responses at once: a progress notification read together with the
    // response is dropped by the SDK itself, so the last may be missing.
    let progress = report["slow"]["progress"].as_array().unwrap();
    assert!(progress.len() >= 2, "{progress:?}");
    assert_eq!(progress[0], json!([1, 3, "step 1 of 3"]));

    let server = HttpServer::start(&["--fixtures", "--root", root_path]);
    let report = node("ts_sdk_client.mjs", &["http", &server.url], LIMIT);
    check(&report);
    assert_eq!(report["protocolVersion"], "2025-11-25");
    assert_eq!(report["slow"]["progress"].as_array().unwrap().len(), 3);
}
