//! The official MCP Python SDK (`mcp` 2.3, pinned with everything it needs
//! in `tests/python/requirements.txt`) as the client of `mcp-server`:
//! `tests/python/sdk_client.py` runs a scenario and prints what the SDK
//! saw, which these tests check.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{HttpServer, Scratch, python, server_binary};

/// How long one scenario may take.
const LIMIT: Duration = Duration::from_secs(120);

/// What the tutorial tools look like through the SDK, on any transport.
fn check_tools(report: &Value) {
    let tools = &report["tools"];
    let add = &tools["add"];
    assert_eq!(
        add["description"].as_str().unwrap().lines().next(),
        Some("Adds two numbers and returns the sum.")
    );
    assert_eq!(add["inputSchema"]["type"], "object");
    assert_eq!(
        add["inputSchema"]["required"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(
        add["inputSchema"]["properties"]["a"]["description"],
        "the first number"
    );
    assert_eq!(
        add["inputSchema"]["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(tools["search"]["outputSchema"]["properties"]["matches"].is_object());

    assert_eq!(report["add"]["text"], "5.5");
    assert_eq!(
        report["add"]["structured"],
        serde_json::json!({"result": 5.5})
    );
    assert_eq!(report["slow"]["text"], "waited 0.3 seconds in 3 steps");
    let progress = report["slow"]["progress"].as_array().unwrap();
    assert_eq!(progress.len(), 3, "one report per step: {progress:?}");
    assert_eq!(progress[2], serde_json::json!([3.0, 3.0, "step 3 of 3"]));

    assert_eq!(report["fail"]["is_error"], true);
    assert_eq!(report["fail"]["text"], "This tool always fails");

    let bad = &report["bad_argument"];
    assert_eq!(bad["raised"], true);
    assert_eq!(bad["code"], -32602);
    assert_eq!(bad["data"]["param"], "b");
    assert_eq!(report["unknown_tool"]["code"], -32602);

    let cancelled = &report["cancelled"];
    assert_eq!(
        cancelled["raised"], true,
        "the SDK gave up on the call: {cancelled}"
    );
    assert_eq!(
        cancelled["served_after"], "2.0",
        "the server serves on after a cancel"
    );
}

#[test]
fn a_stdio_session_lists_and_calls_tools_reads_resources_and_gets_prompts() {
    let root = Scratch::new("python-stdio");
    let report = python(
        "sdk_client.py",
        &[
            "stdio-session",
            server_binary(),
            root.path().to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(report["protocol_version"], "2025-11-25");
    assert_eq!(report["server"], "typed-rpc-mcp");
    check_tools(&report);
    // The cancelled call was never answered.
    assert_eq!(report["cancelled"]["late"], serde_json::json!([]));

    let resources: Vec<&str> = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        resources.iter().any(|uri| uri.ends_with("/notes.txt")),
        "{resources:?}"
    );
    assert!(
        resources.iter().any(|uri| uri.ends_with("/sub/main.rs")),
        "{resources:?}"
    );
    assert_eq!(
        report["read"][0]["text"],
        "hello notes\nsecond line mentions Paris\n"
    );
    assert_eq!(report["read"][0]["mimeType"], "text/plain");
    assert_eq!(
        report["prompts"]["review_file"]["arguments"][0]["name"],
        "path"
    );
    assert_eq!(
        report["prompts"]["review_file"]["arguments"][0]["required"],
        true
    );
    let messages = &report["prompt"]["messages"];
    assert_eq!(messages[0]["content"]["type"], "resource");
    assert_eq!(
        messages[0]["content"]["resource"]["text"],
        "hello notes\nsecond line mentions Paris\n"
    );
}

#[test]
fn the_high_level_client_finds_the_stateless_generation_with_server_discover() {
    let root = Scratch::new("python-auto");
    let report = python(
        "sdk_client.py",
        &["stdio-auto", server_binary(), root.path().to_str().unwrap()],
        LIMIT,
    );
    assert_eq!(report["discovered"], true, "{report}");
    assert_eq!(
        report["initialized"], false,
        "no fallback to initialize: {report}"
    );
    assert_eq!(report["supported_versions"][0], "2026-07-28");
    assert_eq!(report["add"], "42.0");
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .contains(&Value::from("search"))
    );
}

#[test]
fn over_streamable_http_a_session_and_the_high_level_client_call_tools_and_answer_sampling() {
    let root = Scratch::new("python-http");
    let server = HttpServer::start(&["--fixtures", "--root", root.path().to_str().unwrap()]);

    let report = python("sdk_client.py", &["http-session", &server.url], LIMIT);
    assert_eq!(report["protocol_version"], "2025-11-25");
    check_tools(&report);
    // The tool's sampling request travelled on its event stream; the
    // client's answer came back as a POST.
    assert_eq!(
        report["sampling"],
        "LLM response: Paris, said the test's model (asked: What is the capital of France?)"
    );

    // The 2026-07-28 generation: the same tool asks for the sample in an
    // input_required result, and the client's retry brings the answer.
    let report = python("sdk_client.py", &["http-auto", &server.url], LIMIT);
    assert_eq!(report["discovered"], true, "{report}");
    assert_eq!(report["add"], "42.0");
    assert_eq!(
        report["sampling"],
        "LLM response: Paris, said the test's model (asked: What is the capital of France?)"
    );
}
