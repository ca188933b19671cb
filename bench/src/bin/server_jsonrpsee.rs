//! jsonrpsee 0.26 serving the benchmark API over HTTP and WebSocket (one port
//! for both, as jsonrpsee does), with its default settings except the
//! connection limit, raised so the idle-connection test can open 1000.
//!
//! ```text
//! server_jsonrpsee --addr 127.0.0.1:9201
//! ```
//!
//! One current-thread tokio runtime (the runner pins the process to one CPU).

use jsonrpsee::server::{Server, ServerConfig};
use typed_rpc_bench::api::jsonrpsee_api;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut addr = "127.0.0.1:9201".to_owned();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--addr" => addr = args.next().expect("--addr needs a value"),
            other => panic!("unknown argument {other}"),
        }
    }
    let config = ServerConfig::builder().max_connections(20_000).build();
    let server = Server::builder()
        .set_config(config)
        .build(&addr)
        .await
        .expect("bind");
    let handle = server.start(jsonrpsee_api::module());
    handle.stopped().await;
}
