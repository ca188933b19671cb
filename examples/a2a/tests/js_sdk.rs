//! The official A2A JS SDK (`@a2a-js/sdk` 1.3, from npm) as the client of
//! `text-agent`: the card, a blocking send, a stream, `GetTask` and
//! `CancelTask`. A second official client beside the Python SDK's
//! (`tests/python_sdk.rs`), so that two independent implementations agree.
//!
//! Each test starts the agent on a loopback port of its own, runs
//! `tests/js/sdk_client.mjs` with one scenario against the card URL the
//! agent printed, and checks the JSON report of what the SDK saw. The
//! package pinned in `tests/js/package.json` and `package-lock.json` is
//! installed by the test with `npm ci` unless it is there. Node.js 20+ with
//! npm must be on `PATH`.

#[path = "common/agent_process.rs"]
mod agent_process;

use std::time::Duration;

use serde_json::{Value, json};
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::process;

use agent_process::Agent;

/// How long a scenario may take, Node's start included.
const PATIENCE: Duration = Duration::from_secs(60);

/// `node sdk_client.mjs <card> <scenario>` against an agent of its own:
/// what the SDK observed.
fn observe(scenario: &str) -> Value {
    let sdk = NodePackages::install(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/js")).unwrap();
    let agent = Agent::start(&[]);
    let mut node = sdk.node("sdk_client.mjs");
    node.args([agent.card.as_str(), scenario]);
    let output = process::run(node, PATIENCE).unwrap();
    let (stdout, stderr) = (&output.stdout, &output.stderr);
    assert!(
        output.success(),
        "sdk_client.mjs {scenario} failed:\n{stdout}\n{stderr}"
    );
    let report = stdout.lines().last().unwrap_or_default();
    let report: Value = serde_json::from_str(report).unwrap_or_else(|err| {
        panic!("sdk_client.mjs {scenario} printed no JSON report ({err}):\n{stdout}\n{stderr}")
    });
    assert_eq!(report["scenario"], scenario);
    report
}

const HELLO: &str = "hello, I am the text agent";

#[test]
fn the_js_sdk_resolves_the_card_and_speaks_1_0_over_json_rpc() {
    let card = observe("card");
    assert_eq!(card["name"], "text agent");
    assert_eq!(card["interfaces"], json!([["JSONRPC", "1.0"]]));
    assert_eq!(card["protocolVersion"], "1.0", "{card}");
    assert_eq!(card["streaming"], true);
    assert_eq!(card["skills"], json!(["hello", "upper", "slow"]));
    assert_eq!(card["hello"]["kind"], "message", "{card}");
    assert_eq!(card["hello"]["role"], "ROLE_AGENT");
    assert_eq!(card["hello"]["text"], HELLO);
}

#[test]
fn a_blocking_send_answers_the_finished_task_or_a_message() {
    let sent = observe("send");
    let upper = &sent["upper"];
    assert_eq!(upper["kind"], "task", "{sent}");
    assert_eq!(upper["state"], "TASK_STATE_COMPLETED", "{sent}");
    // Its chunks stored as the one text part they append to.
    assert_eq!(
        upper["artifacts"],
        json!([{"artifactId": "upper", "parts": 1, "text": "HELLO FROM JAVASCRIPT"}]),
        "{sent}"
    );
    assert_eq!(sent["hello"]["kind"], "message", "{sent}");
    assert_eq!(sent["hello"]["text"], HELLO);
}

#[test]
fn a_stream_is_the_task_then_status_then_chunks_then_the_terminal_status() {
    let streamed = observe("stream");
    let events = streamed["events"].as_array().expect("events");
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "task", "status", "artifact", "artifact", "artifact", "status"
        ],
        "{streamed}"
    );
    let id = &events[0]["id"];
    assert!(events[1..].iter().all(|e| &e["taskId"] == id), "{streamed}");
    assert_eq!(events[1]["state"], "TASK_STATE_WORKING");
    let chunks: Vec<(&str, bool, bool)> = events[2..5]
        .iter()
        .map(|e| {
            let text = e["text"].as_str().unwrap();
            (text, e["append"] == true, e["lastChunk"] == true)
        })
        .collect();
    assert_eq!(
        chunks,
        [
            ("STREAMED", false, false),
            (" TO THE ", true, false),
            ("JS SDK", true, true)
        ]
    );
    assert_eq!(events[5]["state"], "TASK_STATE_COMPLETED", "{streamed}");
}

#[test]
fn get_task_trims_the_history_and_an_unknown_task_is_task_not_found() {
    let got = observe("get");
    assert_eq!(got["task"]["state"], "TASK_STATE_COMPLETED", "{got}");
    assert_eq!(
        got["roles"],
        json!(["ROLE_USER", "ROLE_AGENT", "ROLE_USER", "ROLE_AGENT"]),
        "{got}"
    );
    assert_eq!(got["historyLength1"], 1, "{got}");
    assert_eq!(got["newestKept"], true, "{got}");
    assert_eq!(got["missing"]["reason"], "TASK_NOT_FOUND", "{got}");
}

#[test]
fn cancel_stops_a_working_task_and_refuses_to_cancel_it_again() {
    let canceled = observe("cancel");
    let started = canceled["started"]["state"].as_str().unwrap();
    assert!(
        matches!(started, "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING"),
        "{canceled}"
    );
    assert_eq!(
        canceled["canceled"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_eq!(
        canceled["after"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_eq!(
        canceled["again"]["reason"], "TASK_NOT_CANCELABLE",
        "{canceled}"
    );
}
