//! MCP Inspector's command line (`@modelcontextprotocol/inspector` 2.12
//! `--cli`, pinned in `tests/js`, on the Node.js 22 it needs) against
//! `mcp-server` over stdio: `tools/list` and `tools/call`, its printed
//! output checked.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Scratch, node_raw, server_binary};

const LIMIT: Duration = Duration::from_secs(120);
/// The Inspector's launcher, inside the installed packages.
const INSPECTOR: &str =
    "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js";

/// Runs the Inspector's CLI on `mcp-server --root ROOT` with `args`: the JSON it printed.
fn inspect(root: &str, args: &[&str]) -> Value {
    let mut all = vec!["--cli", server_binary(), "--root", root];
    all.extend_from_slice(args);
    let (ok, stdout, stderr) = node_raw(INSPECTOR, &all, LIMIT);
    assert!(ok, "the Inspector failed:\n{stderr}\n{stdout}");
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("not JSON ({err}):\n{stdout}"))
}

#[test]
fn the_inspector_cli_lists_and_calls_tools_over_stdio() {
    let root = Scratch::new("inspector");
    let root = root.path().to_str().unwrap();

    let listed = inspect(root, &["--method", "tools/list"]);
    let tools = listed["tools"].as_array().expect("a tools array");
    let search = tools
        .iter()
        .find(|tool| tool["name"] == "search")
        .expect("search listed");
    assert_eq!(
        search["inputSchema"]["required"],
        serde_json::json!(["pattern"])
    );
    assert!(
        search["description"]
            .as_str()
            .unwrap()
            .starts_with("Searches the text files")
    );

    let called = inspect(
        root,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "search",
            "--tool-arg",
            "pattern=Paris",
        ],
    );
    let matches = called["structuredContent"]["matches"]
        .as_array()
        .expect("matches");
    let paths: Vec<&str> = matches.iter().filter_map(|m| m["path"].as_str()).collect();
    assert_eq!(paths, ["notes.txt", "sub/main.rs"], "{called}");
    assert_eq!(called["structuredContent"]["files_searched"], 2);

    let read = inspect(
        root,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "read_file",
            "--tool-arg",
            "path=notes.txt",
        ],
    );
    assert_eq!(
        read["content"][0]["text"],
        "hello notes\nsecond line mentions Paris\n"
    );
}
