//! A server with streaming methods, to try `typed-rpc call --stream` on.
//!
//! ```text
//! ticker --http 127.0.0.1:3000     HTTP (Server-Sent Events) and WebSocket on one port
//! ticker --tcp 127.0.0.1:4000      newline-delimited JSON over TCP
//! ticker --stdio                   stdin and stdout; stops when stdin ends
//! ```
//!
//! ```sh
//! cargo run -p typed-rpc-cli --example ticker -- --http 127.0.0.1:3000
//! cargo run -p typed-rpc-cli -- call --stream http://127.0.0.1:3000 count 5 200
//! cargo run -p typed-rpc-cli -- call --stream --compact ws://127.0.0.1:3000 count 5 200
//! cargo run -p typed-rpc-cli -- call --stream 'stdio:target/debug/examples/ticker --stdio' count 3
//! ```

#[path = "common/ticker_api.rs"]
mod ticker_api;

use std::process::ExitCode;

use ticker_api::{Ticker, Ticks};
use typed_rpc::Router;
use typed_rpc::transport::Server;
use typed_rpc::transport::stream::Framing;

const USAGE: &str = "usage: ticker --http ADDR | --tcp ADDR | --stdio";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = Server::new(Router::new(Ticks.into_service()));
    let handle = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => server.serve_stdio(Framing::Lines),
        ["--http", addr] => match server.serve_http(addr).await {
            Ok(handle) => handle,
            Err(err) => return fail(&format!("cannot listen on {addr}: {err}")),
        },
        ["--tcp", addr] => match server.serve_tcp(addr, Framing::Lines).await {
            Ok(handle) => handle,
            Err(err) => return fail(&format!("cannot listen on {addr}: {err}")),
        },
        _ => return fail(USAGE),
    };
    if let Some(addr) = handle.local_addr() {
        eprintln!("listening on {addr}");
    }
    tokio::select! {
        () = handle.stopped() => {}
        _ = tokio::signal::ctrl_c() => {
            handle.shutdown().await;
        }
    }
    ExitCode::SUCCESS
}

fn fail(message: &str) -> ExitCode {
    eprintln!("ticker: {message}");
    ExitCode::from(2)
}
