//! A client of each transport for a server a test has started, each with a
//! timeout that turns a lost reply into a failure rather than a hung test.
//!
//! Light enough to mount alone (`#[path = "../support/connect.rs"] mod
//! connect;`) in crates that need nothing else from `support`.

use std::time::Duration;

use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Connection, ServerHandle};

/// How long a test waits for any reply.
pub const PATIENCE: Duration = Duration::from_secs(5);

/// An HTTP client of the server behind `handle` (from `serve_http`).
pub fn http(handle: &ServerHandle) -> HttpClient {
    let addr = handle.local_addr().unwrap();
    HttpClient::builder(&format!("http://{addr}/"))
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

/// A WebSocket connection to the server behind `handle` (from `serve_http`).
pub async fn websocket(handle: &ServerHandle) -> Connection {
    let addr = handle.local_addr().unwrap();
    WsConnector::new()
        .connect(&format!("ws://{addr}/"))
        .await
        .unwrap()
        .with_timeout(PATIENCE)
}

/// A newline-delimited TCP connection to the server behind `handle` (from
/// `serve_tcp` with `Framing::Lines`).
pub async fn tcp(handle: &ServerHandle) -> Connection {
    let addr = handle.local_addr().unwrap();
    StreamConnector::new(Framing::Lines)
        .connect_tcp(addr)
        .await
        .unwrap()
        .with_timeout(PATIENCE)
}
