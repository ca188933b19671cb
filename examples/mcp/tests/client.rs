//! Our typed client ([`typed_rpc_mcp::client::Client`]) against someone
//! else's server, a server written with the official Python SDK
//! (`tests/python/reference_server.py`), and against `mcp-server`: over
//! stdio (the server a child process) and Streamable HTTP, in both
//! generations; the servers' sampling (and elicitation) requests are
//! answered by the host the client was built with.

mod support;

use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::json;
use support::{HttpServer, Scratch, python_sdk, server_binary, tests_dir};
use typed_rpc::RpcResult;
use typed_rpc_mcp::McpHost;
use typed_rpc_mcp::ProtocolVersion;
use typed_rpc_mcp::client::{Client, Mode};
use typed_rpc_mcp::types::*;

/// The host of these tests: its model and its user answer predictably.
struct TestHost;

impl McpHost for TestHost {
    async fn create_message(&self, params: CreateMessageParams) -> RpcResult<CreateMessageResult> {
        let asked = params.messages[0]
            .content
            .text()
            .unwrap_or_default()
            .to_owned();
        Ok(CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContents::One(SamplingContent::Text(TextContent {
                text: format!("the Rust host's model on {asked}"),
                annotations: None,
                meta: None,
            })),
            model: "rust-test-model".into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
        })
    }

    async fn elicit(&self, _params: ElicitParams) -> RpcResult<ElicitResult> {
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: json!({"response": "from Rust", "name": "Ferris"})
                .as_object()
                .cloned(),
            meta: None,
        })
    }

    async fn list_roots(&self, _params: Option<PaginatedParams>) -> RpcResult<ListRootsResult> {
        Ok(ListRootsResult {
            roots: vec![Root {
                uri: "file:///tmp".into(),
                name: Some("tmp".into()),
                meta: None,
            }],
            meta: None,
        })
    }

    async fn ping(&self, _params: Option<PaginatedParams>) -> RpcResult<EmptyResult> {
        Ok(EmptyResult::default())
    }
}

fn builder(mode: Mode) -> typed_rpc_mcp::client::Builder {
    Client::builder(Implementation::new("typed-rpc-mcp-test", "1.0.0"))
        .host(TestHost)
        .mode(mode)
        .timeout(Duration::from_secs(60))
}

/// The Python reference server as a child process.
fn python_server() -> tokio::process::Command {
    let mut command = tokio::process::Command::from(
        python_sdk().python(tests_dir().join("python").join("reference_server.py")),
    );
    command.stderr(Stdio::null());
    command
}

/// The Python reference server over HTTP, killed on drop.
struct PythonHttp(Child, String);

impl PythonHttp {
    fn start() -> Self {
        use std::io::BufRead;
        let mut child = python_sdk()
            .python(tests_dir().join("python").join("reference_server.py"))
            .arg("--http")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 starts");
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("a first line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .expect("where it listens")
            .to_owned();
        PythonHttp(child, url)
    }
}

impl Drop for PythonHttp {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lists the reference server's tools, adds, and has it write a poem
/// with our host's model.
async fn check_python_server(client: &Client, version: ProtocolVersion) {
    assert_eq!(client.protocol_version(), version);
    assert_eq!(
        client.server_info().map(|info| info.name.as_str()),
        Some("python-reference")
    );
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(names, ["add", "poem"]);
    let sum = client
        .call_tool("add", json!({"a": 20, "b": 22.5}))
        .await
        .expect("add");
    assert_eq!(sum.joined_text(), "42.5");
    let poem = client
        .call_tool("poem", json!({"topic": "crabs"}))
        .await
        .expect("poem");
    assert!(!poem.failed(), "{poem:?}");
    assert_eq!(
        poem.joined_text(),
        "poem: the Rust host's model on A poem about crabs"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_speaks_both_generations_with_a_python_sdk_server_over_stdio() {
    let client = builder(Mode::Auto)
        .spawn(&mut python_server())
        .await
        .expect("connects");
    check_python_server(&client, ProtocolVersion::V2026_07_28).await;
    client.close().await;

    let client = builder(Mode::Classic)
        .spawn(&mut python_server())
        .await
        .expect("connects");
    check_python_server(&client, ProtocolVersion::V2025_11_25).await;
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_speaks_both_generations_with_a_python_sdk_server_over_http() {
    let server = tokio::task::spawn_blocking(PythonHttp::start)
        .await
        .unwrap();
    let client = builder(Mode::Auto)
        .connect_http(&server.1)
        .await
        .expect("connects");
    check_python_server(&client, ProtocolVersion::V2026_07_28).await;
    client.close().await;

    let client = builder(Mode::Classic)
        .connect_http(&server.1)
        .await
        .expect("connects");
    check_python_server(&client, ProtocolVersion::V2025_11_25).await;
    client.close().await;
}

/// Calls `mcp-server`'s tools that reach the host, and reads its files.
async fn check_our_server(client: &Client) {
    // Over HTTP in 2026-07-28 its argument travels in `Mcp-Param-Region`
    // too: the first call, before the client knows it, is refused, and
    // the client lists the tools to learn it and calls again.
    for _ in 0..2 {
        let routed = client
            .call_tool("test_header_param", json!({"region": "Zürich 1"}))
            .await
            .expect("test_header_param");
        assert_eq!(routed.joined_text(), "routed to Zürich 1");
    }
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|tool| tool.name == "search"));
    let sampled = client
        .call_tool("test_sampling", json!({"prompt": "the capital of France?"}))
        .await
        .expect("test_sampling");
    assert_eq!(
        sampled.joined_text(),
        "LLM response: the Rust host's model on the capital of France?"
    );
    let elicited = client
        .call_tool("test_elicitation", json!({"message": "Who?"}))
        .await
        .expect("test_elicitation");
    assert!(
        elicited.joined_text().contains(r#""response":"from Rust""#),
        "{elicited:?}"
    );
    let roots = client
        .call_tool("test_input_required_result_list_roots", json!({}))
        .await
        .expect("roots");
    assert_eq!(roots.joined_text(), "Found 1 root(s)");
    let resources = client.list_resources().await.expect("resources/list");
    let notes = resources
        .iter()
        .find(|r| r.uri.ends_with("/notes.txt"))
        .expect("notes.txt listed");
    let read = client
        .read_resource(&notes.uri)
        .await
        .expect("resources/read");
    assert!(
        matches!(&read.contents[0], ResourceContents::Text(text) if text.text.starts_with("hello notes"))
    );
    let prompt = client
        .get_prompt(
            "test_prompt_with_arguments",
            [("arg1".into(), "a".into()), ("arg2".into(), "b".into())],
        )
        .await
        .expect("prompts/get");
    assert_eq!(
        prompt.messages[0].content.as_text(),
        Some("Prompt with arguments: arg1='a', arg2='b'")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_and_our_server_over_stdio_and_http_in_both_generations() {
    let root = Scratch::new("client");
    let args = ["--fixtures", "--root", root.path().to_str().unwrap()];
    let mut command = tokio::process::Command::new(server_binary());
    command.args(args);
    for mode in [Mode::Auto, Mode::Classic] {
        let client = builder(mode).spawn(&mut command).await.expect("connects");
        let version = match mode {
            Mode::Classic => ProtocolVersion::V2025_11_25,
            _ => ProtocolVersion::V2026_07_28,
        };
        assert_eq!(client.protocol_version(), version);
        check_our_server(&client).await;
        client.close().await;
    }
    let server = HttpServer::start(&args);
    for mode in [Mode::Auto, Mode::Classic] {
        let client = builder(mode)
            .connect_http(&server.url)
            .await
            .expect("connects");
        check_our_server(&client).await;
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn our_client_and_our_server_over_tcp_a_session_per_connection() {
    let root = Scratch::new("client-tcp");
    let server = typed_rpc_mcp::server::Server::builder(Implementation::new("tcp", "1"));
    let notifier = typed_rpc_mcp::server::Notifier::new();
    let files = typed_rpc_mcp::files::Files::new(root.path(), notifier.clone()).unwrap();
    let server = typed_rpc_mcp::fixtures::serve(files.serve(server), &notifier)
        .build()
        .unwrap();
    let running = typed_rpc_mcp::server::serve_tcp(&server, "127.0.0.1:0", 8)
        .await
        .unwrap();
    for _ in 0..2 {
        let stream = tokio::net::TcpStream::connect(running.local_addr())
            .await
            .unwrap();
        let (read, write) = stream.into_split();
        let client = builder(Mode::Classic)
            .connect_stream(read, write)
            .await
            .expect("connects");
        assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
        check_our_server(&client).await;
        client.close().await;
    }
    running.shutdown().await;
}
