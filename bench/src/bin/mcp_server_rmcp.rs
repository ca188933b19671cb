//! The MCP benchmark's server on the official Rust SDK, rmcp 3.11.0: the
//! same tool as `mcp_server_ours`, written as rmcp's documentation writes
//! tools. `mcp_server_rmcp` serves stdio; `--http 127.0.0.1:0` serves its
//! Streamable HTTP service (default configuration: sessions) on axum, with
//! `TCP_NODELAY` (axum's default leaves Nagle on, and every call then waits
//! for the client's delayed ACK: 40 ms), and prints `listening on
//! http://ADDR/mcp` first.

use axum::serve::ListenerExt;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServiceExt, schemars, tool, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddRequest {
    pub a: i64,
    pub b: i64,
}

#[derive(Debug, Clone)]
pub struct Bench;

#[tool_router(server_handler)]
impl Bench {
    #[tool(description = "Adds two integers.")]
    fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        (a + b).to_string()
    }
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            let service = StreamableHttpService::new(
                || Ok(Bench),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await.expect("listens");
            println!("listening on http://{}/mcp", listener.local_addr().unwrap());
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, router).await.expect("serves");
        }
        _ => {
            let running = Bench.serve(rmcp::transport::stdio()).await.expect("serves stdio");
            let _ = running.waiting().await;
        }
    }
}
