//! The calculator of the JSON-RPC 2.0 specification, served for real.
//!
//! ```text
//! calculator                      serve HTTP (and WebSocket) on 127.0.0.1:3000
//! calculator --http 127.0.0.1:PORT --ws 127.0.0.1:PORT --tcp 127.0.0.1:PORT   (any combination)
//! calculator --stdio [--framing lines|content-length]
//! calculator --http 127.0.0.1:3000 --allow-origin http://localhost:8000   (pages of that origin may call it)
//! ```
//!
//! Each network listener prints `listening on <scheme>://<addr>` (with the
//! real port when given port 0). An HTTP listener also accepts WebSocket
//! upgrades on its port; `--ws` starts the same kind of listener and
//! announces it as `ws://`. The TCP listener speaks newline-delimited JSON.
//! With `--stdio`, stdout carries only messages and the server stops when
//! stdin ends. SIGTERM or Ctrl-C starts a graceful shutdown: requests in
//! flight finish and get their replies (WebSocket connections then close
//! with `1001`). `--allow-origin` lets web pages of another origin call the
//! HTTP listeners (CORS) and open WebSockets to them; without it, a browser
//! lets only pages of the server's own origin do either.
//!
//! `cargo run --example calculator_client` calls it over HTTP and WebSocket.

#[path = "common/calculator_api.rs"]
mod calculator_api;

use std::io::Write;
use std::process::ExitCode;

use calculator_api::{Calc, Calculator};
use typed_rpc::Router;
use typed_rpc::transport::http::{Cors, CorsError};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server, ServerHandle};

/// What to serve, from the command line.
#[derive(Debug, Default)]
struct Options {
    http: Vec<String>,
    ws: Vec<String>,
    tcp: Vec<String>,
    stdio: bool,
    framing: Framing,
    /// The origins of the web pages that may call the server, `*` for any.
    origins: Vec<String>,
}

const USAGE: &str = "\
usage: calculator [--http ADDR] [--ws ADDR] [--tcp ADDR] | --stdio [--framing lines|content-length]
  --http ADDR   JSON-RPC over HTTP POST; WebSocket upgrades are accepted on the same port
  --ws ADDR     the same listener, announced as ws://ADDR (it answers POSTs too)
  --tcp ADDR    newline-delimited JSON over TCP
  --stdio       stdin and stdout, one connection; stops when stdin ends
  --allow-origin ORIGIN
                web pages of ORIGIN (scheme://host[:port]; * for any) may call the
                HTTP and WebSocket listeners from a browser
Each flag may be repeated; with no listener at all, --http 127.0.0.1:3000.";

fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options::default();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--http" => options.http.push(value()?),
            "--ws" => options.ws.push(value()?),
            "--tcp" => options.tcp.push(value()?),
            "--stdio" => options.stdio = true,
            "--allow-origin" => options.origins.push(value()?),
            "--framing" => {
                options.framing = match value()?.as_str() {
                    "lines" => Framing::Lines,
                    "content-length" => Framing::ContentLength,
                    other => return Err(format!("unknown framing `{other}`")),
                }
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let listeners = options.http.len() + options.ws.len() + options.tcp.len();
    if options.stdio && listeners > 0 {
        return Err("--stdio serves stdin and stdout only; it takes no listeners".to_owned());
    }
    if !options.stdio && listeners == 0 {
        options.http.push("127.0.0.1:3000".to_owned());
        eprintln!(
            "try: curl --json '{{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],\"id\":1}}' http://127.0.0.1:3000"
        );
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let mut server = Server::new(Router::new(Calc::default().into_service()));
    match browser_access(&options.origins) {
        Ok(Some(cors)) => server = server.cors(cors),
        Ok(None) => {}
        Err(err) => {
            eprintln!("--allow-origin: {err}");
            return ExitCode::from(2);
        }
    }
    if options.stdio {
        let handle = server.serve_stdio(options.framing);
        tokio::select! {
            () = handle.stopped() => {}
            () = shutdown_signal() => { handle.shutdown().await; }
        }
        return ExitCode::SUCCESS;
    }
    match serve_listeners(&server, &options).await {
        Ok(handles) => {
            shutdown_signal().await;
            eprintln!("shutting down");
            for handle in handles {
                handle.shutdown().await;
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The CORS of `--allow-origin`, if it was given.
fn browser_access(origins: &[String]) -> Result<Option<Cors>, CorsError> {
    if origins.is_empty() {
        return Ok(None);
    }
    if origins.iter().any(|origin| origin == "*") {
        return Ok(Some(Cors::allow_any_origin()));
    }
    Cors::allow_origins(origins).map(Some)
}

/// Starts every listener asked for and announces each on stdout.
async fn serve_listeners(server: &Server, options: &Options) -> Result<Vec<ServerHandle>, String> {
    let mut handles = Vec::new();
    for addr in &options.http {
        let handle = server.clone().serve_http(addr.as_str()).await;
        handles.push(announce("http", addr, handle)?);
    }
    for addr in &options.ws {
        // The HTTP listener is the WebSocket listener: it upgrades on request.
        let handle = server.clone().serve_http(addr.as_str()).await;
        handles.push(announce("ws", addr, handle)?);
    }
    for addr in &options.tcp {
        let handle = server.serve_tcp(addr.as_str(), Framing::Lines).await;
        handles.push(announce("tcp", addr, handle)?);
    }
    Ok(handles)
}

fn announce(
    scheme: &str,
    addr: &str,
    handle: std::io::Result<ServerHandle>,
) -> Result<ServerHandle, String> {
    let handle = handle.map_err(|err| format!("cannot listen on {addr}: {err}"))?;
    let local = handle
        .local_addr()
        .map_or_else(|| addr.to_owned(), |a| a.to_string());
    let mut stdout = std::io::stdout().lock();
    // Scripts wait for this line: print it whole and flush.
    let _ = writeln!(stdout, "listening on {scheme}://{local}").and_then(|()| stdout.flush());
    Ok(handle)
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            },
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
