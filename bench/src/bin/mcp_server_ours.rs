//! The MCP benchmark's server on typed-rpc-mcp: one tool, `add(a, b)`,
//! answering the sum as text. `mcp_server_ours` serves stdio;
//! `mcp_server_ours --http 127.0.0.1:0` serves Streamable HTTP and prints
//! `listening on http://ADDR/mcp` first.

use typed_rpc::{RpcResult, rpc};
use typed_rpc_mcp::http::StreamableHttp;
use typed_rpc_mcp::server::{Server, serve_stdio};
use typed_rpc_mcp::types::Implementation;

#[rpc]
pub trait Bench {
    /// Adds two integers.
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<String>;
}

struct Tools;

impl Bench for Tools {
    async fn add(&self, a: i64, b: i64) -> RpcResult<String> {
        Ok((a + b).to_string())
    }
}

#[tokio::main]
async fn main() {
    let server = Server::builder(Implementation::new("bench-ours", "1.0.0"))
        .tools(Tools.into_service())
        .build()
        .expect("one tool");
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => {
            let running = StreamableHttp::new(&server).serve(addr).await.expect("listens");
            println!("listening on http://{}/mcp", running.local_addr());
            running.stopped().await;
        }
        _ => serve_stdio(&server).stopped().await,
    }
}
