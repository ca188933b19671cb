//! Runs the network benchmarks and prints one table.
//!
//! For each server and transport: start the server pinned to CPU 0
//! (`taskset -c 0`), then for each connection count run the load generator
//! pinned to CPU 1 (`taskset -c 1`); over the measured window, sample the
//! server's CPU time (utime + stime from `/proc/PID/stat`) and report server
//! CPU µs per request beside requests/s. After the last (largest) connection
//! count, read the server's peak RSS (`VmHWM`). Then, on a fresh server, open
//! N idle WebSocket connections and report the RSS growth per connection.
//!
//! ```text
//! runner [--duration 5] [--warmup 1] [--conns 1,16,64] [--idle 1000]
//!        [--servers floor,jsonrpsee,typed-rpc] [--transports http,ws] [--client raw|hyper]
//! ```
//!
//! `bench/run.sh` builds everything and calls this.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use typed_rpc_bench::procstat;

const SERVER_CPU: &str = "0";
const LOADGEN_CPU: &str = "1";

/// A server under test: how to start it and where it listens.
struct ServerSpec {
    name: &'static str,
    /// The binary (in the same directory as this runner) and its arguments.
    command: Option<(&'static str, Vec<&'static str>)>,
    http_url: &'static str,
    ws_url: &'static str,
}

fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            name: "floor",
            command: Some((
                "server_floor",
                vec!["--http", "127.0.0.1:9101", "--ws", "127.0.0.1:9102"],
            )),
            http_url: "http://127.0.0.1:9101/",
            ws_url: "ws://127.0.0.1:9102/",
        },
        ServerSpec {
            name: "jsonrpsee",
            command: Some(("server_jsonrpsee", vec!["--addr", "127.0.0.1:9201"])),
            http_url: "http://127.0.0.1:9201/",
            ws_url: "ws://127.0.0.1:9201/",
        },
        ServerSpec {
            name: "typed-rpc",
            command: Some(("server_ours", vec!["--addr", "127.0.0.1:9301"])),
            http_url: "http://127.0.0.1:9301/",
            ws_url: "ws://127.0.0.1:9301/",
        },
    ]
}

struct Args {
    duration: String,
    warmup: String,
    conns: Vec<u64>,
    idle: u64,
    servers: Option<Vec<String>>,
    transports: Vec<String>,
    client: String,
}

fn parse_args() -> Args {
    let mut args = Args {
        duration: "5".to_owned(),
        warmup: "1".to_owned(),
        conns: vec![1, 16, 64],
        idle: 1000,
        servers: None,
        transports: vec!["http".to_owned(), "ws".to_owned()],
        client: "raw".to_owned(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        let list = || value.split(',').map(str::to_owned).collect::<Vec<_>>();
        match flag.as_str() {
            "--duration" => args.duration = value.clone(),
            "--warmup" => args.warmup = value.clone(),
            "--conns" => {
                args.conns = list()
                    .iter()
                    .map(|c| c.parse().expect("a connection count"))
                    .collect()
            }
            "--idle" => args.idle = value.parse().expect("a connection count"),
            "--servers" => args.servers = Some(list()),
            "--transports" => args.transports = list(),
            "--client" => args.client = value.clone(),
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

fn bin_dir() -> PathBuf {
    std::env::current_exe()
        .expect("the runner's path")
        .parent()
        .expect("a directory")
        .to_owned()
}

/// A server process, killed on drop.
struct Running {
    child: Child,
}

impl Running {
    fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(dir: &Path, bin: &str, args: &[&str], wait_for: &str) -> Running {
    let child = Command::new("taskset")
        .args(["-c", SERVER_CPU])
        .arg(dir.join(bin))
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("start the server with taskset");
    let running = Running { child };
    let addr = wait_for
        .split("://")
        .nth(1)
        .unwrap_or(wait_for)
        .trim_end_matches('/');
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "{bin} did not listen on {addr}");
        sleep(Duration::from_millis(20));
    }
    running
}

fn loadgen(dir: &Path, args: &[String]) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new("taskset")
        .args(["-c", LOADGEN_CPU])
        .arg(dir.join("loadgen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the load generator with taskset");
    let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    (child, stdout)
}

/// One measured run.
#[derive(Default)]
struct Row {
    server: String,
    transport: String,
    conns: u64,
    rps: f64,
    p50: f64,
    p99: f64,
    errors: u64,
    server_cpu_us_per_req: f64,
    server_cpu_pct: f64,
    loadgen_cpu_pct: f64,
}

fn field(line: &str, key: &str) -> f64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

fn measure(
    dir: &Path,
    server: &Running,
    url: &str,
    conns: u64,
    args: &Args,
) -> Result<Row, String> {
    let pid = server.pid();
    let (mut child, stdout) = loadgen(
        dir,
        &[
            "--url".into(),
            url.into(),
            "-c".into(),
            conns.to_string(),
            "-d".into(),
            args.duration.clone(),
            "--warmup".into(),
            args.warmup.clone(),
            "--client".into(),
            args.client.clone(),
        ],
    );
    let mut cpu_start = None;
    let mut cpu_used = None;
    let mut result = None;
    for line in stdout.lines() {
        let line = line.map_err(|e| e.to_string())?;
        match line.as_str() {
            "START" => cpu_start = Some((procstat::cpu_micros(&pid), Instant::now())),
            "END" => {
                if let Some((Some(c0), t0)) = cpu_start {
                    let c1 = procstat::cpu_micros(&pid).unwrap_or(c0);
                    cpu_used = Some((c1 - c0, t0.elapsed()));
                }
            }
            l if l.starts_with("RESULT ") => result = Some(line.clone()),
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let result = result.ok_or(format!("the load generator failed: {status}"))?;
    let (cpu_us, wall) = cpu_used.ok_or("no START/END from the load generator")?;
    let requests = field(&result, "requests");
    let window = field(&result, "window_s");
    Ok(Row {
        conns,
        rps: field(&result, "rps"),
        p50: field(&result, "p50_us"),
        p99: field(&result, "p99_us"),
        errors: field(&result, "errors") as u64,
        server_cpu_us_per_req: cpu_us as f64 / requests,
        server_cpu_pct: 100.0 * cpu_us as f64 / wall.as_micros() as f64,
        loadgen_cpu_pct: 100.0 * field(&result, "cpu_us") / (window * 1e6),
        ..Row::default()
    })
}

/// RSS growth per idle WebSocket connection, in KiB.
fn idle_ws(
    dir: &Path,
    spec: &ServerSpec,
    bin: &str,
    bin_args: &[&str],
    n: u64,
) -> Result<f64, String> {
    let server = start_server(dir, bin, bin_args, spec.ws_url);
    let pid = server.pid();
    let (mut child, stdout) = loadgen(
        dir,
        &[
            "--url".into(),
            spec.ws_url.into(),
            "--idle".into(),
            n.to_string(),
        ],
    );
    let stdin: Option<ChildStdin> = child.stdin.take();
    let mut before = None;
    let mut after = None;
    for line in stdout.lines() {
        let line = line.map_err(|e| e.to_string())?;
        match line.as_str() {
            "WARM" => before = procstat::status_kib(&pid, "VmRSS"),
            "READY" => {
                after = procstat::status_kib(&pid, "VmRSS");
                drop(stdin);
                break;
            }
            _ => {}
        }
    }
    let _ = child.wait();
    match (before, after) {
        (Some(b), Some(a)) => Ok((a as f64 - b as f64) / n as f64),
        _ => Err("the idle run did not complete".to_owned()),
    }
}

fn main() {
    let args = parse_args();
    let dir = bin_dir();
    let mut rows = Vec::new();
    let mut memory = Vec::new();
    println!(
        "# servers pinned to CPU {SERVER_CPU} (taskset -c {SERVER_CPU}), load generator to CPU {LOADGEN_CPU} (taskset -c {LOADGEN_CPU}); \
         {}s measured after {}s warm-up per row; HTTP client: {}",
        args.duration, args.warmup, args.client
    );
    for spec in servers() {
        if args
            .servers
            .as_ref()
            .is_some_and(|s| !s.iter().any(|n| n == spec.name))
        {
            continue;
        }
        let Some((bin, bin_args)) = &spec.command else {
            println!(
                "# {}: no server binary yet (see the TODO in runner.rs); skipped",
                spec.name
            );
            continue;
        };
        let mut peaks = Vec::new();
        for transport in &args.transports {
            let url = if transport == "ws" {
                spec.ws_url
            } else {
                spec.http_url
            };
            let server = start_server(&dir, bin, bin_args, url);
            for &conns in &args.conns {
                eprintln!("# {} {transport} C={conns}", spec.name);
                match measure(&dir, &server, url, conns, &args) {
                    Ok(mut row) => {
                        row.server = spec.name.to_owned();
                        row.transport = transport.clone();
                        rows.push(row);
                    }
                    Err(err) => eprintln!("# {} {transport} C={conns} failed: {err}", spec.name),
                }
            }
            let peak = procstat::status_kib(&server.pid(), "VmHWM").unwrap_or(0);
            peaks.push(format!("{transport} {:.1} MiB", peak as f64 / 1024.0));
        }
        let idle = if args.transports.iter().any(|t| t == "ws") && args.idle > 0 {
            match idle_ws(&dir, &spec, bin, bin_args, args.idle) {
                Ok(kib) => format!("{kib:.1} KiB"),
                Err(err) => format!("failed: {err}"),
            }
        } else {
            "-".to_owned()
        };
        memory.push((spec.name, peaks.join(", "), idle));
    }
    println!();
    println!(
        "| server | transport | C | req/s | p50 µs | p99 µs | errors | server CPU µs/req | server CPU % | loadgen CPU % |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {} | {:.2} | {:.0} | {:.0} |",
            r.server,
            r.transport,
            r.conns,
            r.rps,
            r.p50,
            r.p99,
            r.errors,
            r.server_cpu_us_per_req,
            r.server_cpu_pct,
            r.loadgen_cpu_pct
        );
    }
    println!();
    let largest = args.conns.iter().max().copied().unwrap_or(0);
    println!(
        "| server | peak RSS (VmHWM) after C={largest} | RSS per idle WebSocket connection (N={}) |",
        args.idle
    );
    println!("|---|---|---:|");
    for (name, peaks, idle) in memory {
        println!("| {name} | {peaks} | {idle} |");
    }
}
