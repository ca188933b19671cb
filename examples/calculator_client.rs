//! The calculator's generated client, calling it over HTTP and over
//! WebSocket: the same typed calls on either transport.
//!
//! ```text
//! calculator_client                           start a calculator in-process on a free port, call it both ways
//! calculator_client [--http URL] [--ws URL]   call a running calculator (either or both)
//! ```
//!
//! For instance, with `cargo run --example calculator` serving
//! 127.0.0.1:3000 (HTTP and WebSocket on one port):
//!
//! ```text
//! cargo run --example calculator_client -- --http http://127.0.0.1:3000/ --ws ws://127.0.0.1:3000/
//! ```

#[path = "common/calculator_api.rs"]
mod calculator_api;

use std::error::Error;
use std::process::ExitCode;
use std::time::Duration;

use calculator_api::{Calc, Calculator, CalculatorClient};
use typed_rpc::client::Transport;
use typed_rpc::transport::Server;
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::{ErrorObject, Router};

const USAGE: &str = "usage: calculator_client [--http URL] [--ws URL]
  --http URL   a calculator's HTTP endpoint (http://HOST:PORT/)
  --ws URL     a calculator's WebSocket endpoint (ws://HOST:PORT/)
With neither, a calculator is started in-process on a free port and called both ways.";

/// How long one call may take.
const TIMEOUT: Duration = Duration::from_secs(10);

#[tokio::main]
async fn main() -> ExitCode {
    let (mut http, mut ws) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let slot = match flag.as_str() {
            "--http" => &mut http,
            "--ws" => &mut ws,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(url) = args.next() else {
            eprintln!("{flag} needs a URL\n{USAGE}");
            return ExitCode::from(2);
        };
        *slot = Some(url);
    }
    match run(http, ws).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(http: Option<String>, ws: Option<String>) -> Result<(), Box<dyn Error>> {
    // Without URLs, serve a calculator here: one port answers both.
    let local = match (&http, &ws) {
        (None, None) => {
            let router = Router::new(Calc::default().into_service());
            let handle = Server::new(router).serve_http("127.0.0.1:0").await?;
            let addr = handle.local_addr().expect("a TCP listener");
            println!("serving a calculator on {addr}");
            Some((handle, format!("http://{addr}/"), format!("ws://{addr}/")))
        }
        _ => None,
    };
    let (http, ws) = match &local {
        Some((_, http, ws)) => (Some(http.clone()), Some(ws.clone())),
        None => (http, ws),
    };

    if let Some(url) = http {
        println!("over HTTP, {url}:");
        let client = HttpClient::builder(&url).timeout(TIMEOUT).build()?;
        calls(&CalculatorClient::new(client)).await?;
    }
    if let Some(url) = ws {
        println!("over WebSocket, {url}:");
        let connection = WsConnector::new().connect(&url).await?;
        let client = CalculatorClient::new(connection.with_timeout(TIMEOUT));
        calls(&client).await?;
        // The last handle dropped closes the connection (close code 1000).
        drop(client);
    }

    if let Some((handle, ..)) = local {
        handle.shutdown().await;
    }
    Ok(())
}

/// The same calls on any transport, each printed with its result.
async fn calls<T: Transport>(client: &CalculatorClient<T>) -> Result<(), Box<dyn Error>> {
    println!(
        "  subtract(42, 23) = {}",
        client.subtract(42.into(), 23.into()).await?
    );
    println!("  add(2, 3) = {}", client.add(2.into(), 3.into()).await?);
    println!(
        "  add(0.25, 0.5) = {}",
        client.add(0.25.into(), 0.5.into()).await?
    );
    println!("  sum([1, 2, 4]) = {}", client.sum(vec![1, 2, 4]).await?);
    println!("  get_data() = {:?}", client.get_data().await?);
    client.update(vec![1, 2, 3]).await?;
    println!("  update([1, 2, 3]) sent: a notification, never answered");
    match client.add(i64::MAX.into(), 1.into()).await {
        Ok(sum) => println!("  add(i64::MAX, 1) = {sum}"),
        Err(err) => {
            let rpc: Option<&ErrorObject> = err.rpc_error();
            match rpc {
                Some(rpc) => println!(
                    "  add(i64::MAX, 1) failed: {} {} (data: {})",
                    rpc.code(),
                    rpc.message(),
                    rpc.data()
                        .map_or("none".to_owned(), |data| data.get().to_owned())
                ),
                None => return Err(err.into()),
            }
        }
    }
    Ok(())
}
