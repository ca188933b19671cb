//! typed-rpc serving the benchmark API over HTTP and WebSocket: one
//! `Server::serve_http`, which answers `POST`s and accepts WebSocket upgrades
//! on the same port (as jsonrpsee does), with default limits except the
//! connection limit, raised so the idle-connection test can open 1000.
//!
//! ```text
//! server_ours --addr 127.0.0.1:9301
//! ```
//!
//! One current-thread tokio runtime (the runner pins the process to one CPU).

use typed_rpc::transport::{Limits, Server};
use typed_rpc_bench::api::ours;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut addr = "127.0.0.1:9301".to_owned();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--addr" => addr = args.next().expect("--addr needs a value"),
            other => panic!("unknown argument {other}"),
        }
    }
    let handle = Server::new(ours::router())
        .limits(Limits::default().max_connections(20_000))
        .serve_http(&addr)
        .await
        .expect("bind");
    handle.stopped().await;
}
