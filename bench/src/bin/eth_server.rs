//! The eth-node's chain served by typed-rpc (its own router, as the
//! `eth-node` binary serves it) or by jsonrpsee 0.26, over HTTP and
//! WebSocket on one port.
//!
//! ```text
//! eth_server ours --addr 127.0.0.1:9401 [--block-time-ms 100]
//! eth_server jsonrpsee --addr 127.0.0.1:9402 [--block-time-ms 100]
//! ```
//!
//! One current-thread tokio runtime each (the benchmark pins the process to
//! one CPU); connection limits raised for the 1 000 subscribers.

use std::time::Duration;

use jsonrpsee::server::{Server as JsonrpseeServer, ServerConfig};
use typed_rpc::transport::{Limits, Server};
use typed_rpc_bench::eth::jsonrpsee_api;
use typed_rpc_eth_node::{Node, NodeConfig};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().expect("ours or jsonrpsee");
    let (mut addr, mut block_time) = (None, None);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--addr" => addr = Some(value),
            "--block-time-ms" => block_time = Some(Duration::from_millis(value.parse().expect("milliseconds"))),
            other => panic!("unknown argument {other}"),
        }
    }
    let addr = addr.expect("--addr is required");
    let mut config = NodeConfig::dev(31337).expect("the development accounts");
    config.block_time = block_time;
    let node = Node::new(config);
    if let Some(interval) = block_time {
        node.spawn_miner(interval);
    }
    match which.as_str() {
        "ours" => {
            let limits = Limits::default().max_connections(20_000);
            let server = Server::new(node.router().expect("one name each")).limits(limits);
            server.serve_http(&addr).await.expect("bind").stopped().await;
        }
        "jsonrpsee" => {
            let config = ServerConfig::builder().max_connections(20_000).build();
            let server = JsonrpseeServer::builder().set_config(config).build(&addr).await.expect("bind");
            server.start(jsonrpsee_api::module(node)).stopped().await;
        }
        other => panic!("unknown server {other}"),
    }
}
