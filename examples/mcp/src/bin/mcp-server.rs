//! `mcp-server [--stdio | --http ADDR | --tcp ADDR] [--root DIR]
//! [--fixtures] [--state-secret SECRET]`: the files of a directory (the
//! current one unless `--root` says) as an MCP server, over stdio (the
//! default), Streamable HTTP at `http://ADDR/mcp`, or TCP (a message per
//! line, a session per connection); port 0 picks a port, and the bound
//! address is printed on stderr. `--fixtures` adds the tools, resources
//! and prompts the protocol's conformance suite exercises, and the
//! tutorial tools `add`, `slow` and `fail`. `--state-secret` signs the
//! 2026-07-28 generation's request state with a secret servers behind one
//! balancer share (else each process has its own key).

use std::path::PathBuf;

use typed_rpc_mcp::files::Files;
use typed_rpc_mcp::http::{ENDPOINT, StreamableHttp};
use typed_rpc_mcp::server::{Notifier, Server, StateKey, serve_stdio};
use typed_rpc_mcp::types::Implementation;

struct Options {
    http: Option<String>,
    tcp: Option<String>,
    root: PathBuf,
    fixtures: bool,
    state_secret: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        tcp: None,
        root: PathBuf::from("."),
        fixtures: false,
        state_secret: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--stdio" => (options.http, options.tcp) = (None, None),
            "--http" => options.http = Some(value()?),
            "--tcp" => options.tcp = Some(value()?),
            "--root" => options.root = PathBuf::from(value()?),
            "--fixtures" => options.fixtures = true,
            "--state-secret" => options.state_secret = Some(value()?),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

const USAGE: &str =
    "usage: mcp-server [--stdio | --http ADDR] [--root DIR] [--fixtures] [--state-secret SECRET]";

fn server(options: &Options) -> Result<Server, String> {
    let notifier = Notifier::new();
    let files = Files::new(&options.root, notifier.clone())
        .map_err(|err| format!("--root {}: {err}", options.root.display()))?;
    let mut builder = Server::builder(Implementation::new(
        "typed-rpc-mcp",
        env!("CARGO_PKG_VERSION"),
    ))
    .instructions(format!(
        "Tools, resources and prompts over the files of {}.",
        files.root().display()
    ));
    builder = files.serve(builder);
    if options.fixtures {
        builder = typed_rpc_mcp::fixtures::serve(builder, &notifier);
    }
    if let Some(secret) = &options.state_secret {
        builder = builder.state_key(StateKey::from_secret(secret.as_bytes()));
    }
    builder.build().map_err(|err| err.to_string())
}

#[tokio::main]
async fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(err) => {
            if !err.is_empty() {
                eprintln!("mcp-server: {err}");
            }
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let server = match server(&options) {
        Ok(server) => server,
        Err(err) => {
            eprintln!("mcp-server: {err}");
            std::process::exit(1);
        }
    };
    match (&options.http, &options.tcp) {
        (Some(addr), _) => serve_http(&server, addr).await,
        (None, Some(addr)) => serve_tcp(&server, addr).await,
        (None, None) => serve_stdio(&server).stopped().await,
    }
}

/// Resolves at SIGTERM or Ctrl-C.
async fn terminated() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
}

/// Serves TCP on `addr` until SIGTERM or Ctrl-C.
async fn serve_tcp(server: &Server, addr: &str) {
    let running = match typed_rpc_mcp::server::serve_tcp(server, addr, 1024).await {
        Ok(running) => running,
        Err(err) => {
            eprintln!("mcp-server: cannot listen on {addr}: {err}");
            std::process::exit(1);
        }
    };
    eprintln!("mcp-server: listening on tcp://{}", running.local_addr());
    terminated().await;
    running.shutdown().await;
}

/// Serves Streamable HTTP on `addr` until SIGTERM or Ctrl-C.
async fn serve_http(server: &Server, addr: &str) {
    let running = match StreamableHttp::new(server).serve(addr).await {
        Ok(running) => running,
        Err(err) => {
            eprintln!("mcp-server: cannot listen on {addr}: {err}");
            std::process::exit(1);
        }
    };
    eprintln!(
        "mcp-server: listening on http://{}{ENDPOINT}",
        running.local_addr()
    );
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
    running.shutdown().await;
}
