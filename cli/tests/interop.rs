//! `typed-rpc` against JSON-RPC servers no one here wrote: jayson's HTTP,
//! TCP and WebSocket servers and a vscode-jsonrpc server on stdio with
//! `Content-Length` framing, the foreign servers of `tests/interop/`.
//!
//! Their npm packages are pinned in `tests/interop/package-lock.json`;
//! this test installs them (`npm ci`) when they are missing or stale, under
//! the same lock as the root crate's interop test. Node.js 20+ with npm must
//! be on `PATH`.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use support::{repo, scratch_file, typed_rpc};
use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::npm::NodePackages;

/// How long a foreign server may take to say where it listens.
const PATIENCE: Duration = Duration::from_secs(60);

fn interop_dir() -> PathBuf {
    repo().join("tests").join("interop")
}

/// The packages of `tests/interop/`, installed unless they are there.
fn interop_packages() -> NodePackages {
    NodePackages::install(interop_dir()).unwrap()
}

/// Starts `jayson_server.js TRANSPORT` and returns it with the URL it
/// announces, which takes a path (`/`) over HTTP and WebSocket.
fn jayson(transport: &str) -> (ChildGuard, String) {
    let mut command = interop_packages().node("jayson_server.js");
    command.arg(transport);
    let (server, url) = ChildGuard::serve(&mut command, "listening on ", PATIENCE).unwrap();
    match transport {
        "tcp" => (server, url),
        _ => (server, format!("{url}/")),
    }
}

#[test]
fn calls_jayson_over_http_tcp_and_websocket() {
    for transport in ["http", "tcp", "ws"] {
        let (_server, url) = jayson(transport);
        assert_eq!(
            typed_rpc(&["call", &url, "subtract", "42", "23"]).ok(),
            "19\n",
            "{transport}"
        );
        assert_eq!(
            typed_rpc(&["call", &url, "subtract", "subtrahend=23", "minuend=42"]).ok(),
            "19\n",
            "{transport}"
        );
        assert_eq!(
            typed_rpc(&["call", "--compact", &url, "get_data"]).ok(),
            "[\"hello\",5]\n",
            "{transport}"
        );

        // jayson's own -32602, and its application error -32000 with data.
        let run = typed_rpc(&["call", "--compact", &url, "subtract", "42"]);
        assert_eq!(run.code(), 5, "{transport}: {run:?}");
        let error: Value = serde_json::from_str(&run.stderr).expect("the error object");
        assert_eq!(error["code"], -32602);
        assert_eq!(error["data"]["param"], "subtrahend");
        let run = typed_rpc(&["call", &url, "add", "9007199254740991", "1"]);
        assert_eq!(run.code(), 5, "{transport}: {run:?}");
        let error: Value = serde_json::from_str(&run.stderr).expect("the error object");
        assert_eq!(error["message"], "Overflow");
    }
}

#[test]
fn a_batch_and_notifications_to_jayson() {
    let file = scratch_file(
        "jayson.jsonl",
        "{\"method\": \"update\", \"params\": [4, 5], \"notify\": true}\n\
         {\"method\": \"sum\", \"params\": [1, 2, 3]}\n\
         {\"method\": \"nope\"}\n\
         {\"method\": \"total\"}\n",
    );
    for transport in ["http", "tcp", "ws"] {
        let (_server, url) = jayson(transport);
        let run = typed_rpc(&["batch", "--compact", &url, file.to_str().unwrap()]);
        assert_eq!(
            run.code(),
            5,
            "{transport}: one call has no method: {run:?}"
        );
        let replies: Value = serde_json::from_str(&run.stdout).expect("JSON");
        assert_eq!(
            replies[0],
            serde_json::json!({ "method": "sum", "result": 6 }),
            "{transport}"
        );
        assert_eq!(replies[1]["error"]["code"], -32601, "{transport}");
        assert_eq!(replies[2]["method"], "total", "{transport}");
        assert!(run.stderr.contains("1 of 3 calls failed"), "{}", run.stderr);

        typed_rpc(&["call", "--notify", &url, "update", "10"]).ok();
        assert_eq!(
            typed_rpc(&["call", &url, "total"]).ok(),
            "19\n",
            "{transport}"
        );
    }
}

#[test]
fn spawns_a_vscode_jsonrpc_server_on_stdio_with_content_length() {
    let script = interop_packages().dir().join("vscode_server.js");
    let url = format!("stdio:node '{}'", script.display());
    let call = |args: &[&str]| {
        let mut all = vec!["call", "--framing", "content-length", &url];
        all.extend_from_slice(args);
        typed_rpc(&all)
    };
    assert_eq!(call(&["subtract", "42", "23"]).ok(), "19\n");
    assert_eq!(call(&["sum", "1", "2", "4"]).ok(), "7\n");
    let run = call(&["add", "a=1"]);
    assert_eq!(run.code(), 5, "{run:?}");
    assert!(run.stderr.contains("-32602"), "{}", run.stderr);
}
