//! `mcp-server [--stdio | --http ADDR] [--root DIR] [--fixtures]`: an MCP
//! server over stdio (the default) or Streamable HTTP.

use typed_rpc_mcp::fixtures::{BasicTools, Basics};
use typed_rpc_mcp::server::{Server, serve_stdio};
use typed_rpc_mcp::types::Implementation;

#[tokio::main]
async fn main() {
    let server = Server::builder(Implementation::new(
        "typed-rpc-mcp",
        env!("CARGO_PKG_VERSION"),
    ))
    .tools(BasicTools.into_service())
    .build()
    .expect("the tools are valid");
    let handle = serve_stdio(&server);
    handle.stopped().await;
}
