//! The protocol's conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `tests/js`) against our typed client: the suite serves each
//! client scenario and spawns a client, this test binary itself, which
//! runs the scenario with `Client` and exits. Every scenario a client
//! without OAuth can take part in, in the generation it is written for.
//!
//! A test without libtest's harness (`harness = false`): the suite starts
//! this binary with `MCP_CONFORMANCE_SCENARIO` set and the server's URL as
//! its last argument, and then it is the client.

mod support;

use std::time::Duration;

use serde_json::{Map, Value, json};
use typed_rpc::{ClientError, RpcResult};
use typed_rpc_mcp::api::McpHost;
use typed_rpc_mcp::client::{Client, Mode};
use typed_rpc_mcp::types::*;

use support::node_raw;

/// The suite's entry point, inside the installed packages.
const SUITE: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// How long one scenario may take, client included.
const LIMIT: Duration = Duration::from_secs(60);

/// The scenarios run: all of the suite's client scenarios but OAuth's
/// (this client has no authorization) and the extensions'.
const SCENARIOS: &[&str] = &[
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
];

fn main() {
    match std::env::var("MCP_CONFORMANCE_SCENARIO") {
        Ok(scenario) => be_the_client(&scenario),
        Err(_) => run_the_suite(),
    }
}

/// Runs each scenario under the suite, this binary as its client, and
/// fails with every failed scenario's report.
fn run_the_suite() {
    let me = std::env::current_exe().expect("the test binary's path");
    let command = me.to_str().expect("a UTF-8 path");
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let args = ["client", "--command", command, "--scenario", scenario];
        let (ok, stdout, stderr) = node_raw(SUITE, &args, LIMIT);
        // The suite fails a scenario on a failed check, a warning, or the
        // client's error or timeout.
        let passed = ok && format!("{stdout}{stderr}").contains("OVERALL: PASSED");
        println!("{scenario}: {}", if passed { "passed" } else { "FAILED" });
        if !passed {
            failed.push(format!("== {scenario}\n{stdout}\n{stderr}"));
        }
    }
    assert!(
        failed.is_empty(),
        "scenarios failed:\n{}",
        failed.join("\n")
    );
    println!("{} client scenarios passed", SCENARIOS.len());
}

/// Plays the client's part of `scenario` against the URL the suite gave.
fn be_the_client(scenario: &str) {
    let url = std::env::args().next_back().expect("the server's URL");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    if let Err(err) = runtime.block_on(play(scenario, &url)) {
        eprintln!("{scenario}: {err}");
        std::process::exit(1);
    }
}

/// What the suite asks the client to do, from its environment.
struct Asked {
    /// The generation: the version the scenario is written for.
    mode: Mode,
    /// The calls to make, as the scenario's context lists them.
    tool_calls: Vec<(String, Value)>,
}

impl Asked {
    fn from_env() -> Self {
        let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
        let mode = match version.as_str() {
            "2026-07-28" => Mode::Stateless,
            _ => Mode::Classic,
        };
        let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|context| serde_json::from_str(&context).ok())
            .unwrap_or_default();
        let tool_calls = context["toolCalls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|call| {
                let name = call["name"].as_str()?.to_owned();
                Some((name, call["arguments"].clone()))
            })
            .collect();
        Asked { mode, tool_calls }
    }
}

async fn play(scenario: &str, url: &str) -> Result<(), ClientError> {
    let asked = Asked::from_env();
    let client = Client::builder(Implementation::new("typed-rpc-mcp-conformance", "1.0.0"))
        .host(ConformanceHost)
        .mode(asked.mode)
        .timeout(Duration::from_secs(20))
        .connect_http(url)
        .await?;
    let tools = client.list_tools().await?;
    match scenario {
        "initialize" | "json-schema-ref-no-deref" | "request-metadata" => {}
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .ok_or_else(|| missing("json_schema_2020_12_tool"))?;
            let schema = Value::Object(focal.input_schema.clone());
            client
                .call_tool("json_schema_echo", json!({ "schema": schema }))
                .await?;
        }
        "http-standard-headers" => {
            for tool in &tools {
                client.call_tool(&tool.name, json!({})).await?;
            }
            for resource in client.list_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_prompts().await? {
                client.get_prompt(&prompt.name, Vec::new()).await?;
            }
        }
        _ if !asked.tool_calls.is_empty() => {
            for (name, arguments) in &asked.tool_calls {
                client.call_tool(name, arguments.clone()).await?;
            }
        }
        // Every tool the server offers, with the arguments the suite's
        // tools take.
        _ => {
            for tool in &tools {
                client
                    .call_tool(&tool.name, json!({"a": 2, "b": 3}))
                    .await?;
            }
        }
    }
    client.close().await;
    Ok(())
}

#[cold]
fn missing(what: &str) -> ClientError {
    ClientError::Rpc(typed_rpc::ErrorObject::new(
        -32000,
        format!("the server offers no {what}"),
    ))
}

/// The host: a model that answers, a user who accepts what is asked with
/// the schema's defaults (and `confirmed: true`), no roots.
struct ConformanceHost;

impl McpHost for ConformanceHost {
    async fn create_message(&self, _: CreateMessageParams) -> RpcResult<CreateMessageResult> {
        Ok(CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContents::One(SamplingContent::Text(TextContent {
                text: "sampled by the conformance host".into(),
                annotations: None,
                meta: None,
            })),
            model: "conformance-model".into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
        })
    }

    async fn elicit(&self, params: ElicitParams) -> RpcResult<ElicitResult> {
        let mut content = Map::new();
        let properties = params
            .requested_schema
            .as_ref()
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if let Some(default) = property.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
        if properties.is_some_and(|properties| properties.contains_key("confirmed")) {
            content.insert("confirmed".into(), Value::Bool(true));
        }
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        })
    }

    async fn list_roots(&self, _: Option<PaginatedParams>) -> RpcResult<ListRootsResult> {
        Ok(ListRootsResult {
            roots: Vec::new(),
            meta: None,
        })
    }

    async fn ping(&self, _: Option<PaginatedParams>) -> RpcResult<EmptyResult> {
        Ok(EmptyResult::default())
    }
}
