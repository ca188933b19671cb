//! The MCP benchmark (issue 34): `tools/call` round trips per second,
//! latency and server CPU per call, for the same tool on our server
//! (`mcp_server_ours`, typed-rpc-mcp), the official Rust SDK's
//! (`mcp_server_rmcp`, rmcp 3.11.0) and the official Python SDK's
//! (`python/mcp_server.py`, mcp 2.3), in one run, over stdio and over
//! Streamable HTTP (classic sessions, each SDK's default server).
//!
//! The servers run pinned to CPU 0 (`taskset -c 0`); the load
//! (`typed_rpc_bench::mcp_load`) runs in this process, which
//! `bench/run.sh mcp` pins to CPU 1. Each case starts a fresh server, warms
//! up for a second, then reads the server's CPU time from
//! `/proc/PID/task/*/schedstat` at both ends of the measured window. The
//! servers take turns within each case (ours, rmcp, Python).
//!
//! ```text
//! mcp_bench [--duration 5] [--bin DIR] [--python-packages DIR] [--no-python]
//! ```

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};

use typed_rpc_bench::a2a_load::Tally;
use typed_rpc_bench::harness::{self, SERVER_CPU};
use typed_rpc_bench::mcp_load::{self, StdioSession, WARMUP};
use typed_rpc_bench::procstat;

struct Options {
    duration: Duration,
    bin: String,
    python_packages: String,
    python: bool,
}

fn options() -> Result<Options, String> {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let mut options = Options {
        duration: Duration::from_secs(5),
        bin: format!("{target}/release"),
        python_packages: "../target/mcp-python".into(),
        python: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--duration" => {
                options.duration = value()?.parse().map(Duration::from_secs_f64).map_err(|_| "--duration: seconds")?
            }
            "--bin" => options.bin = value()?,
            "--python-packages" => options.python_packages = value()?,
            "--no-python" => options.python = false,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// A server of the benchmark.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Server {
    Ours,
    Rmcp,
    Python,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Server::Ours => "typed-rpc-mcp",
            Server::Rmcp => "rmcp 3.11.0",
            Server::Python => "Python SDK 2.3",
        }
    }

    /// The server's command, pinned to the server CPU.
    fn command(self, options: &Options, http: bool) -> tokio::process::Command {
        let mut command = tokio::process::Command::new("taskset");
        command.args(["-c", SERVER_CPU]);
        match self {
            Server::Ours => command.arg(format!("{}/mcp_server_ours", options.bin)),
            Server::Rmcp => command.arg(format!("{}/mcp_server_rmcp", options.bin)),
            Server::Python => command
                .env("PYTHONPATH", &options.python_packages)
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .args(["python3", "python/mcp_server.py"]),
        };
        if http {
            match self {
                Server::Python => command.arg("--http"),
                _ => command.args(["--http", "127.0.0.1:0"]),
            };
        }
        command.kill_on_drop(true).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        command
    }
}

/// A transport and its concurrency.
#[derive(Clone, Copy)]
enum Load {
    /// stdio with this many calls in flight.
    Stdio(usize),
    /// HTTP with this many connections (sessions), a call at a time each.
    Http(usize),
}

impl Load {
    fn label(self) -> String {
        match self {
            Load::Stdio(window) => format!("stdio, {window} in flight"),
            Load::Http(conns) => format!("HTTP, {conns} sessions"),
        }
    }
}

struct Measured {
    server: Server,
    load: Load,
    tally: Tally,
    window: Duration,
    cpu: Duration,
}

async fn measure(server: Server, load: Load, options: &Options) -> Result<Measured, String> {
    let http = matches!(load, Load::Http(_));
    let mut child = server.command(options, http).spawn().map_err(|e| format!("{}: {e}", server.name()))?;
    let pid = child.id().ok_or("no pid")?.to_string();
    let cpu = || procstat::cpu_nanos(&pid).ok_or(format!("{}: no CPU time", server.name()));
    let (tally, window, spent) = match load {
        Load::Stdio(in_flight) => {
            let mut session = StdioSession::open(&mut child).await?;
            session.run(in_flight, Instant::now() + WARMUP).await?;
            let (before, started) = (cpu()?, Instant::now());
            let tally = session.run(in_flight, started + options.duration).await?;
            (tally, started.elapsed(), cpu()? - before)
        }
        Load::Http(conns) => {
            let stdout = child.stdout.take().ok_or("no stdout")?;
            let mut line = String::new();
            BufReader::new(stdout).read_line(&mut line).await.map_err(|e| e.to_string())?;
            let url = line
                .trim()
                .strip_prefix("listening on ")
                .ok_or("the server said not where it listens")?
                .to_owned();
            mcp_load::run_http(&url, conns, Instant::now() + WARMUP).await;
            let (before, started) = (cpu()?, Instant::now());
            let tally = mcp_load::run_http(&url, conns, started + options.duration).await;
            (tally, started.elapsed(), cpu()? - before)
        }
    };
    let _ = child.kill().await;
    Ok(Measured {
        server,
        load,
        tally,
        window,
        cpu: Duration::from_nanos(spent),
    })
}

fn main() -> Result<(), String> {
    let options = options()?;
    harness::check_pinning()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut servers = vec![Server::Ours, Server::Rmcp];
    if options.python {
        servers.push(Server::Python);
    }
    let loads = [Load::Stdio(1), Load::Stdio(16), Load::Http(1), Load::Http(16)];
    let mut results = Vec::new();
    for load in loads {
        for &server in &servers {
            eprintln!("# {} {}", server.name(), load.label());
            results.push(runtime.block_on(measure(server, load, &options))?);
        }
    }
    print_table(&mut results, &options, servers.len());
    Ok(())
}

fn print_table(results: &mut [Measured], options: &Options, per_load: usize) {
    println!(
        "MCP tools/call add(1, 2), one run: {:?} windows after {:?} warm-up; servers on CPU {SERVER_CPU}",
        options.duration, WARMUP
    );
    println!(
        "{:<24} {:<16} {:>10} {:>7} {:>12} {:>12} {:>10} {:>10}",
        "load", "server", "calls/s", "errors", "CPU/call", "calls/CPU-s", "p50", "p99"
    );
    let per_cpu = |m: &Measured| m.tally.requests as f64 / m.cpu.as_secs_f64();
    for m in results.iter_mut() {
        let p50 = m.tally.quantile_us(0.5);
        let p99 = m.tally.quantile_us(0.99);
        println!(
            "{:<24} {:<16} {:>10.0} {:>7} {:>9.1} us {:>12.0} {:>7.0} us {:>7.0} us",
            m.load.label(),
            m.server.name(),
            m.tally.requests as f64 / m.window.as_secs_f64(),
            m.tally.errors,
            m.cpu.as_secs_f64() * 1e6 / m.tally.requests.max(1) as f64,
            per_cpu(m),
            p50,
            p99,
        );
    }
    println!();
    println!("ours against the others, per load: calls per server CPU-second, and p50 latency (theirs / ours)");
    for group in results.chunks_mut(per_load) {
        let ours_per_cpu = per_cpu(&group[0]);
        let ours_p50 = group[0].tally.quantile_us(0.5);
        let label = group[0].load.label();
        for other in group.iter_mut().skip(1) {
            println!(
                "{:<24} vs {:<16} calls/CPU-s {:>6.2}x   p50 {:>6.2}x",
                label,
                other.server.name(),
                ours_per_cpu / per_cpu(other),
                other.tally.quantile_us(0.5) / ours_p50,
            );
        }
    }
}
