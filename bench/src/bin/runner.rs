//! Runs the network benchmarks and prints one table.
//!
//! For each server and transport: start the server pinned to CPU 0
//! (`taskset -c 0`), then for each connection count run the load generator
//! pinned to CPU 1 (`taskset -c 1`); over the measured window, sample the
//! server's CPU time (utime + stime from `/proc/PID/stat`) and report server
//! CPU µs per request beside requests/s. After the last (largest) connection
//! count, read the server's peak RSS (`VmHWM`). Then, on a fresh server, open
//! N idle WebSocket connections and report the RSS growth per connection
//! (first run only).
//!
//! All of that is repeated `--runs` times, the servers taking turns within
//! each run, so that a change in the machine's background load hits every
//! server alike. The table gives the median of each figure over the runs;
//! the ratios table gives, for each row, the median over the runs of the
//! ratio taken within one run (with its range), as the issue asks.
//!
//! ```text
//! runner [--runs 5] [--duration 5] [--warmup 1] [--conns 1,16,64] [--idle 1000]
//!        [--servers floor,jsonrpsee,typed-rpc] [--transports http,ws] [--client raw|hyper]
//!        [--ws-client raw|tungstenite]
//! ```
//!
//! `bench/run.sh` builds everything and calls this. For a steadier ratio of
//! two servers' CPU per request, measured at the same time, see `paired`.

use std::io::BufRead;
use std::path::Path;
use std::process::ChildStdin;

use typed_rpc_bench::harness::{
    self, LOADGEN_CPU, LoadResult, LoadSettings, SERVER_CPU, ServerSpec, median,
};
use typed_rpc_bench::procstat;

struct Args {
    runs: usize,
    load: LoadSettings,
    conns: Vec<u64>,
    idle: u64,
    servers: Option<Vec<String>>,
    transports: Vec<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        runs: 5,
        load: LoadSettings::new("5", "1"),
        conns: vec![1, 16, 64],
        idle: 1000,
        servers: None,
        transports: vec!["http".to_owned(), "ws".to_owned()],
    };
    let pairs = harness::flag_pairs(std::env::args().skip(1)).unwrap_or_else(|err| panic!("{err}"));
    for (flag, value) in pairs {
        if args.load.set(&flag, &value) {
            continue;
        }
        match flag.as_str() {
            "--runs" => args.runs = value.parse().expect("a number of runs"),
            "--conns" => {
                args.conns = harness::parse_conns(&value).unwrap_or_else(|err| panic!("{err}"))
            }
            "--idle" => args.idle = value.parse().expect("a connection count"),
            "--servers" => args.servers = Some(harness::list(&value)),
            "--transports" => args.transports = harness::list(&value),
            other => panic!("unknown argument {other}"),
        }
    }
    args
}

/// One measured run.
#[derive(Default)]
struct Row {
    run: usize,
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

fn measure(
    dir: &Path,
    server: &harness::Running,
    url: &str,
    conns: u64,
    args: &Args,
) -> Result<Row, String> {
    let pid = server.pid();
    let window =
        harness::measure_window(dir, &args.load, url, conns, || procstat::cpu_micros(&pid))?;
    let result = LoadResult::parse(&window.result);
    Ok(Row {
        conns,
        rps: result.rps,
        p50: result.p50_us,
        p99: result.p99_us,
        errors: result.errors,
        server_cpu_us_per_req: window.server_cpu as f64 / result.requests,
        server_cpu_pct: 100.0 * window.server_cpu as f64 / window.wall.as_micros() as f64,
        loadgen_cpu_pct: result.loadgen_cpu_pct(),
        ..Row::default()
    })
}

/// RSS growth per idle WebSocket connection, in KiB.
fn idle_ws(dir: &Path, spec: &ServerSpec, n: u64) -> Result<f64, String> {
    let server =
        harness::start_server(dir, spec, spec.ws_url).unwrap_or_else(|err| panic!("{err}"));
    let pid = server.pid();
    let (mut child, stdout) = harness::spawn_loadgen(
        dir,
        &[
            "--url".into(),
            spec.ws_url.into(),
            "--idle".into(),
            n.to_string(),
        ],
    )?;
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
    let dir = harness::bin_dir();
    let specs: Vec<ServerSpec> = harness::servers()
        .into_iter()
        .filter(|spec| {
            args.servers
                .as_ref()
                .is_none_or(|s| s.iter().any(|n| n == spec.name))
        })
        .collect();
    println!(
        "# servers pinned to CPU {SERVER_CPU} (taskset -c {SERVER_CPU}), load generator to CPU {LOADGEN_CPU} (taskset -c {LOADGEN_CPU}); \
         {} runs, {}s measured after {}s warm-up per row; HTTP client: {}; WebSocket client: {}",
        args.runs, args.load.duration, args.load.warmup, args.load.client, args.load.ws_client
    );
    let mut rows = Vec::new();
    let mut peaks = Vec::new();
    let mut idle = Vec::new();
    for run in 1..=args.runs {
        for spec in &specs {
            for transport in &args.transports {
                let (measured, peak_kib) = measure_server(&dir, spec, transport, run, &args);
                rows.extend(measured);
                peaks.push((spec.name, transport.clone(), peak_kib));
            }
            if run == 1 && args.transports.iter().any(|t| t == "ws") && args.idle > 0 {
                let kib = idle_ws(&dir, spec, args.idle).map_or_else(
                    |err| format!("failed: {err}"),
                    |kib| format!("{kib:.1} KiB"),
                );
                idle.push((spec.name, kib));
            }
        }
    }
    print_rows(&rows, &specs, &args);
    print_ratios(&rows, &args);
    print_memory(&peaks, &idle, &specs, &args);
}

/// One server on one transport, at every connection count; the rows and
/// the server's peak RSS in KiB.
fn measure_server(
    dir: &Path,
    spec: &ServerSpec,
    transport: &str,
    run: usize,
    args: &Args,
) -> (Vec<Row>, u64) {
    let url = spec.url(transport);
    let server = harness::start_server(dir, spec, url).unwrap_or_else(|err| panic!("{err}"));
    let mut rows = Vec::new();
    for &conns in &args.conns {
        eprintln!("# run {run}: {} {transport} C={conns}", spec.name);
        match measure(dir, &server, url, conns, args) {
            Ok(row) => rows.push(Row {
                run,
                server: spec.name.to_owned(),
                transport: transport.to_owned(),
                ..row
            }),
            Err(err) => eprintln!("# {} {transport} C={conns} failed: {err}", spec.name),
        }
    }
    let peak = procstat::status_kib(&server.pid(), "VmHWM").unwrap_or(0);
    (rows, peak)
}

/// The rows of one server, transport and connection count, one per run.
fn cell<'r>(rows: &'r [Row], server: &str, transport: &str, conns: u64) -> Vec<&'r Row> {
    rows.iter()
        .filter(|r| r.server == server && r.transport == transport && r.conns == conns)
        .collect()
}

fn print_rows(rows: &[Row], specs: &[ServerSpec], args: &Args) {
    println!();
    println!("Medians over {} runs; errors are the total.", args.runs);
    println!();
    println!(
        "| server | transport | C | req/s | p50 µs | p99 µs | errors | server CPU µs/req | server CPU % | loadgen CPU % |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for spec in specs {
        for transport in &args.transports {
            for &conns in &args.conns {
                let runs = cell(rows, spec.name, transport, conns);
                if runs.is_empty() {
                    continue;
                }
                let med = |f: fn(&Row) -> f64| median(runs.iter().map(|r| f(r)).collect());
                println!(
                    "| {} | {transport} | {conns} | {:.0} | {:.1} | {:.1} | {} | {:.2} | {:.0} | {:.0} |",
                    spec.name,
                    med(|r| r.rps),
                    med(|r| r.p50),
                    med(|r| r.p99),
                    runs.iter().map(|r| r.errors).sum::<u64>(),
                    med(|r| r.server_cpu_us_per_req),
                    med(|r| r.server_cpu_pct),
                    med(|r| r.loadgen_cpu_pct),
                );
            }
        }
    }
}

/// `a / b` per run, for the runs that measured both; median and range.
fn ratio(a: &[&Row], b: &[&Row], f: fn(&Row) -> f64) -> String {
    let ratios: Vec<f64> = a
        .iter()
        .filter_map(|x| b.iter().find(|y| y.run == x.run).map(|y| f(x) / f(y)))
        .collect();
    if ratios.is_empty() {
        return "-".to_owned();
    }
    let (lo, hi) = harness::range(&ratios);
    format!("{:.2} ({lo:.2}-{hi:.2})", median(ratios))
}

fn print_ratios(rows: &[Row], args: &Args) {
    println!();
    println!("Ratios within each run; median (range) over the runs.");
    println!();
    println!(
        "| transport | C | CPU/req typed-rpc / floor | CPU/req jsonrpsee / floor | req/s typed-rpc / jsonrpsee |"
    );
    println!("|---|---:|---:|---:|---:|");
    let cpu = |r: &Row| r.server_cpu_us_per_req;
    let rps = |r: &Row| r.rps;
    for transport in &args.transports {
        for &conns in &args.conns {
            let [ours, jsonrpsee, floor] =
                ["typed-rpc", "jsonrpsee", "floor"].map(|s| cell(rows, s, transport, conns));
            println!(
                "| {transport} | {conns} | {} | {} | {} |",
                ratio(&ours, &floor, cpu),
                ratio(&jsonrpsee, &floor, cpu),
                ratio(&ours, &jsonrpsee, rps),
            );
        }
    }
}

fn print_memory(
    peaks: &[(&str, String, u64)],
    idle: &[(&str, String)],
    specs: &[ServerSpec],
    args: &Args,
) {
    println!();
    let largest = args.conns.iter().max().copied().unwrap_or(0);
    println!(
        "| server | peak RSS (VmHWM) after C={largest}, median | RSS per idle WebSocket connection (N={}) |",
        args.idle
    );
    println!("|---|---|---:|");
    for spec in specs {
        let peak = args
            .transports
            .iter()
            .map(|t| {
                let kib = peaks
                    .iter()
                    .filter(|(s, tr, _)| *s == spec.name && tr == t)
                    .map(|(_, _, kib)| *kib as f64)
                    .collect();
                format!("{t} {:.1} MiB", median(kib) / 1024.0)
            })
            .collect::<Vec<_>>()
            .join(", ");
        let idle = idle
            .iter()
            .find(|(s, _)| *s == spec.name)
            .map_or("-", |(_, kib)| kib.as_str());
        println!("| {} | {peak} | {idle} |", spec.name);
    }
}
