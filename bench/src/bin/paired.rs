//! Compares servers' CPU per request two at a time, both measured in the
//! same seconds, for a ratio steadier than `runner`'s.
//!
//! ```text
//! paired [--rounds 5] [--duration 4] [--warmup 1] [--conns 16,64] [--transports http,ws]
//!        [--servers floor,typed-rpc] [--quota 40] [--client raw|hyper]
//!        [--ws-client raw|tungstenite]
//! ```
//!
//! Run as root (for the cgroups), after building:
//! `cd bench && cargo build --release --bins && target/release/paired`.
//!
//! # Why
//!
//! `runner` measures one server after another. On a small shared machine the
//! background load drifts from second to second, so two runs of the same
//! code differ by more (±15 % on the 2-core VM) than the margin a ratio of
//! CPU per request has to show (10 %). Here the two servers of a pair run at
//! the same time, on the same CPU, under the same load generator CPU: what
//! the machine does to one it does to the other, and their ratio is steady
//! (about ±0.02 from round to round).
//!
//! # How
//!
//! The first server of `--servers` is the baseline; each other one is paired
//! with it in turn, so at most two servers run at once. For each transport,
//! connection count and round, both servers start pinned to CPU 0
//! (`taskset -c 0`), each in its own cgroup (`typed-rpc-bench-<server>`,
//! v1 `cpu` controller or v2) capped at `--quota` % of a CPU per 10 ms
//! period. One load generator per server, both pinned to CPU 1
//! (`taskset -c 1`), start together, each with `C` connections. At each
//! generator's `START` and `END` its server's CPU time is read from
//! `/proc/PID/task/*/schedstat` (nanoseconds, not 10 ms ticks); CPU per
//! request is that over the requests of the generator's `RESULT`. A round
//! whose `RESULT` counts errors (or that fails outright) is reported and left
//! out of the summary: the median, over the rounds, of each round's ratio
//! other / baseline, its range, and the median µs/request of each server.
//!
//! The quota keeps both servers saturated: each would use more CPU than it
//! is given, so neither idles waiting for requests, and a server that gets
//! less CPU (because the machine is busy) only answers fewer requests,
//! which leaves its CPU per request alone. That holds only while the load
//! generators keep up; so each round line shows each generator's CPU %, and
//! a warning follows whenever a server used less than 90 % of its quota:
//! either the generators (sharing CPU 1) could not keep it busy, or other
//! work on CPU 0 took part of its share. The summary counts those rounds.
//!
//! The cgroups are removed at the end; after an interrupted run they are
//! left behind and the next run reuses them. Without root or a cgroup `cpu`
//! controller this exits and says why: `runner`, which needs neither, is the
//! fallback.

use std::path::Path;
use std::process::exit;
use std::sync::Barrier;
use std::thread;

use typed_rpc_bench::cgroup::{self, CpuQuota};
use typed_rpc_bench::harness::{
    self, LOADGEN_CPU, LoadResult, LoadSettings, Running, SERVER_CPU, ServerSpec, median,
};
use typed_rpc_bench::procstat;

const USAGE: &str = "usage: paired [--rounds 5] [--duration 4] [--warmup 1] [--conns 16,64] \
    [--transports http,ws] [--servers floor,typed-rpc] [--quota 40] [--client raw|hyper] \
    [--ws-client raw|tungstenite]";

/// A server's share of CPU time under the quota below which a round counts
/// as not saturated.
const SATURATED: f64 = 0.9;

struct Args {
    rounds: usize,
    load: LoadSettings,
    conns: Vec<u64>,
    transports: Vec<String>,
    /// The baseline first.
    servers: Vec<ServerSpec>,
    /// % of one CPU per server.
    quota: u32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        rounds: 5,
        load: LoadSettings::new("4", "1"),
        conns: vec![16, 64],
        transports: harness::list("http,ws"),
        servers: server_list("floor,typed-rpc")?,
        quota: 40,
    };
    for (flag, value) in harness::flag_pairs(std::env::args().skip(1))? {
        if args.load.set(&flag, &value) {
            continue;
        }
        match flag.as_str() {
            "--rounds" => args.rounds = number(&flag, &value)?,
            "--conns" => args.conns = harness::parse_conns(&value)?,
            "--transports" => args.transports = transport_list(&value)?,
            "--servers" => args.servers = server_list(&value)?,
            "--quota" => args.quota = number(&flag, &value)?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.rounds == 0 {
        return Err("--rounds must be at least 1".to_owned());
    }
    if !(10..=100).contains(&args.quota) {
        return Err("--quota must be 10 to 100 (% of one CPU)".to_owned());
    }
    Ok(args)
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} wants a number, not {value}"))
}

/// Two or more distinct servers, by name.
fn server_list(value: &str) -> Result<Vec<ServerSpec>, String> {
    let names = harness::list(value);
    if names.len() < 2 {
        return Err("--servers needs a baseline and at least one other server".to_owned());
    }
    if (1..names.len()).any(|i| names[..i].contains(&names[i])) {
        return Err(format!("--servers names a server twice: {value}"));
    }
    names
        .iter()
        .map(|name| harness::server(name).ok_or(format!("no server called {name}")))
        .collect()
}

fn transport_list(value: &str) -> Result<Vec<String>, String> {
    let transports = harness::list(value);
    match transports
        .iter()
        .find(|t| !["http", "ws"].contains(&t.as_str()))
    {
        Some(unknown) => Err(format!("unknown transport {unknown} (http or ws)")),
        None => Ok(transports),
    }
}

/// Prints `message` to stderr and exits with `code`. Only before any cgroup
/// exists: `exit` skips their removal.
fn fail(code: i32, message: &str) -> ! {
    eprintln!("paired: {message}");
    exit(code)
}

fn main() {
    if std::env::args().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    let args = parse_args().unwrap_or_else(|err| fail(2, &format!("{err}\n{USAGE}")));
    let dir = harness::bin_dir();
    if let Err(err) = check_binaries(&dir, &args.servers).and_then(|()| harness::check_pinning()) {
        fail(1, &err);
    }
    let quotas = create_quotas(&args).unwrap_or_else(|err| {
        fail(
            1,
            &format!(
                "cannot cap the servers' CPU with a cgroup: {err}.\n\
                 Run as root on a machine with the cgroup cpu controller. The fallback is \
                 `runner`, which needs neither: it measures the servers one after another, \
                 with less steady ratios."
            ),
        )
    });
    print_method(&args, &quotas[0]);
    let rounds = run_all(&dir, &args, &quotas);
    print_summary(&rounds, &args);
}

/// Fails if a server binary or `loadgen` is missing from `dir`.
fn check_binaries(dir: &Path, servers: &[ServerSpec]) -> Result<(), String> {
    let bins = servers.iter().map(|s| s.bin).chain(["loadgen"]);
    for bin in bins {
        if !dir.join(bin).exists() {
            return Err(format!(
                "{} is missing: build with `cargo build --release --bins` in bench/",
                dir.join(bin).display()
            ));
        }
    }
    Ok(())
}

/// One capped cgroup per server, in the order of `args.servers`.
fn create_quotas(args: &Args) -> Result<Vec<CpuQuota>, String> {
    let version = cgroup::Version::detect()?;
    args.servers
        .iter()
        .map(|spec| {
            CpuQuota::create(
                version,
                &format!("typed-rpc-bench-{}", spec.name),
                args.quota,
            )
        })
        .collect()
}

fn print_method(args: &Args, quota: &CpuQuota) {
    let quota_us = u64::from(args.quota) * cgroup::PERIOD_US / 100;
    println!(
        "# servers two at a time, both pinned to CPU {SERVER_CPU} (taskset -c {SERVER_CPU}), each in its own \
         cgroup {} ({}) capped at {} % of a CPU ({quota_us} µs per {} µs period); one load generator per \
         server, both pinned to CPU {LOADGEN_CPU} (taskset -c {LOADGEN_CPU}) and started together; server CPU \
         from /proc/PID/task/*/schedstat between its generator's START and END; baseline {}; {} rounds, {}s \
         measured after {}s warm-up; HTTP client: {}; WebSocket client: {}",
        quota.version().name(),
        quota
            .dir()
            .parent()
            .map_or("?".into(), |p| p.display().to_string()),
        args.quota,
        cgroup::PERIOD_US,
        args.servers[0].name,
        args.rounds,
        args.load.duration,
        args.load.warmup,
        args.load.client,
        args.load.ws_client,
    );
}

/// One server's figures over one window.
struct Side {
    cpu_us_per_req: f64,
    rps: f64,
    /// The server's CPU use over the window, % of one CPU.
    cpu_pct: f64,
    loadgen_cpu_pct: f64,
}

impl Side {
    /// Whether the server used at least [`SATURATED`] of its quota.
    fn saturated(&self, quota: u32) -> bool {
        self.cpu_pct >= SATURATED * f64::from(quota)
    }
}

/// One round of one pair: the baseline's figures, then the other server's.
struct Round {
    transport: String,
    conns: u64,
    other: &'static str,
    /// `None` if the round failed.
    sides: Option<[Side; 2]>,
}

impl Round {
    /// The other server's CPU per request over the baseline's.
    fn ratio(&self) -> Option<f64> {
        let [base, other] = self.sides.as_ref()?;
        Some(other.cpu_us_per_req / base.cpu_us_per_req)
    }
}

/// Every round of every pair, printing one line per round.
fn run_all(dir: &Path, args: &Args, quotas: &[CpuQuota]) -> Vec<Round> {
    let mut rounds = Vec::new();
    for transport in &args.transports {
        for &conns in &args.conns {
            for round in 1..=args.rounds {
                for other in 1..args.servers.len() {
                    let pair = [0, other].map(|i| (&args.servers[i], &quotas[i]));
                    let result = run_pair(dir, args, transport, conns, pair);
                    let label = format!("{transport} C={conns} round {round}/{}:", args.rounds);
                    report_round(
                        &label,
                        &pair.map(|(spec, _)| spec.name),
                        &result,
                        args.quota,
                    );
                    rounds.push(Round {
                        transport: transport.clone(),
                        conns,
                        other: args.servers[other].name,
                        sides: result.ok(),
                    });
                }
            }
        }
    }
    rounds
}

/// Starts both servers, runs a load generator against each at the same
/// time, and stops the servers.
fn run_pair(
    dir: &Path,
    args: &Args,
    transport: &str,
    conns: u64,
    pair: [(&ServerSpec, &CpuQuota); 2],
) -> Result<[Side; 2], String> {
    let [base, other] = pair.map(|(spec, quota)| start_capped(dir, spec, quota, transport));
    let servers = [base?, other?];
    let start_together = Barrier::new(2);
    let [base, other] = thread::scope(|scope| {
        let load = |i: usize| {
            let (server, spec, start) = (&servers[i], pair[i].0, &start_together);
            scope.spawn(move || {
                start.wait();
                measure(dir, &args.load, server, spec, transport, conns)
            })
        };
        [load(0), load(1)].map(|thread| {
            thread
                .join()
                .unwrap_or_else(|_| Err("a load thread panicked".to_owned()))
        })
    });
    Ok([base?, other?])
}

/// Starts `spec` pinned to the server CPU, in `quota`'s group, and waits
/// until it listens for `transport`.
fn start_capped(
    dir: &Path,
    spec: &ServerSpec,
    quota: &CpuQuota,
    transport: &str,
) -> Result<Running, String> {
    let in_context = |err: String| format!("{}: {err}", spec.name);
    let mut server = Running::spawn(dir, spec).map_err(in_context)?;
    quota.add(&server.pid()).map_err(in_context)?;
    server
        .wait_listening(spec.url(transport))
        .map_err(in_context)?;
    Ok(server)
}

/// One load generator run against `server`; an error if it failed or its
/// `RESULT` counts errors.
fn measure(
    dir: &Path,
    load: &LoadSettings,
    server: &Running,
    spec: &ServerSpec,
    transport: &str,
    conns: u64,
) -> Result<Side, String> {
    let pid = server.pid();
    let url = spec.url(transport);
    let window = harness::measure_window(dir, load, url, conns, || procstat::cpu_nanos(&pid))
        .map_err(|err| format!("{}: {err}", spec.name))?;
    let result = LoadResult::parse(&window.result);
    if result.errors > 0 {
        return Err(format!("{}: {} errors in RESULT", spec.name, result.errors));
    }
    if result.requests.is_nan() || result.requests < 1.0 {
        return Err(format!("{}: no request answered", spec.name));
    }
    let cpu_ns = window.server_cpu as f64;
    Ok(Side {
        cpu_us_per_req: cpu_ns / 1000.0 / result.requests,
        rps: result.rps,
        cpu_pct: 100.0 * cpu_ns / window.wall.as_nanos() as f64,
        loadgen_cpu_pct: result.loadgen_cpu_pct(),
    })
}

/// Prints a round's line, and a warning if a server was not saturated.
fn report_round(label: &str, names: &[&str; 2], result: &Result<[Side; 2], String>, quota: u32) {
    let sides = match result {
        Ok(sides) => sides,
        Err(err) => {
            println!("{label} failed: {err}");
            return;
        }
    };
    let side = |i: usize| {
        let s = &sides[i];
        format!(
            "{} {:.2} µs/req {:.0} req/s (CPU {:.1} %, loadgen {:.0} %)",
            names[i], s.cpu_us_per_req, s.rps, s.cpu_pct, s.loadgen_cpu_pct
        )
    };
    let ratio = sides[1].cpu_us_per_req / sides[0].cpu_us_per_req;
    println!(
        "{label} {} | {} | {}/{} {ratio:.3}",
        side(0),
        side(1),
        names[1],
        names[0]
    );
    for (name, s) in names.iter().zip(sides) {
        if !s.saturated(quota) {
            warn_unsaturated(name, s.cpu_pct, sides, quota);
        }
    }
}

/// Says that server `name` used only `cpu_pct` % of a CPU, and what may be
/// why.
fn warn_unsaturated(name: &str, cpu_pct: f64, sides: &[Side; 2], quota: u32) {
    println!(
        "  warning: {name} used {cpu_pct:.1} % of a CPU, under {:.0} % of its {quota} % quota: \
         not saturated. Either the load generators (CPU {LOADGEN_CPU}: {:.0} % + {:.0} %, \
         {:.0} req/s together) could not keep it busy, or other work on CPU {SERVER_CPU} \
         took part of its share.",
        SATURATED * 100.0,
        sides[0].loadgen_cpu_pct,
        sides[1].loadgen_cpu_pct,
        sides[0].rps + sides[1].rps,
    );
}

fn print_summary(rounds: &[Round], args: &Args) {
    let base = args.servers[0].name;
    println!();
    println!(
        "Server CPU per request, other / {base}, within each round; median (min-max) over the rounds \
         that succeeded. Under quota: rounds in which a server used less than {:.0} % of its quota.",
        SATURATED * 100.0
    );
    println!();
    println!(
        "| transport | C | server | CPU/req ratio to {base} | {base} µs/req | server µs/req | {base} req/s | server req/s | rounds ok | failed | under quota |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for transport in &args.transports {
        for &conns in &args.conns {
            for other in &args.servers[1..] {
                let cell: Vec<&Round> = rounds
                    .iter()
                    .filter(|r| {
                        &r.transport == transport && r.conns == conns && r.other == other.name
                    })
                    .collect();
                print_summary_row(transport, conns, other.name, &cell, args.quota);
            }
        }
    }
}

/// One row of the summary: one pair at one transport and connection count.
fn print_summary_row(transport: &str, conns: u64, other: &str, rounds: &[&Round], quota: u32) {
    let ok: Vec<&[Side; 2]> = rounds.iter().filter_map(|r| r.sides.as_ref()).collect();
    let failed = rounds.len() - ok.len();
    let unsaturated = ok
        .iter()
        .filter(|sides| sides.iter().any(|s| !s.saturated(quota)))
        .count();
    let ratios: Vec<f64> = rounds.iter().filter_map(|r| r.ratio()).collect();
    let ratio = if ratios.is_empty() {
        "-".to_owned()
    } else {
        let (lo, hi) = harness::range(&ratios);
        format!("{:.3} ({lo:.3}-{hi:.3})", median(ratios))
    };
    let med = |f: fn(&[Side; 2]) -> f64| median(ok.iter().map(|s| f(s)).collect());
    println!(
        "| {transport} | {conns} | {other} | {ratio} | {:.2} | {:.2} | {:.0} | {:.0} | {} | {failed} | {unsaturated} |",
        med(|s| s[0].cpu_us_per_req),
        med(|s| s[1].cpu_us_per_req),
        med(|s| s[0].rps),
        med(|s| s[1].rps),
        ok.len(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_two_or_more_distinct_known_ones() {
        let names = |list: Vec<ServerSpec>| list.iter().map(|s| s.name).collect::<Vec<_>>();
        assert_eq!(
            names(server_list("typed-rpc,floor,jsonrpsee").unwrap()),
            ["typed-rpc", "floor", "jsonrpsee"]
        );
        assert!(server_list("floor").is_err());
        assert!(server_list("floor,floor").is_err());
        assert!(server_list("floor,nope").is_err());
    }

    #[test]
    fn transports_are_http_or_ws() {
        assert_eq!(transport_list("ws,http").unwrap(), ["ws", "http"]);
        assert!(transport_list("http,tcp").is_err());
    }

    #[test]
    fn ratio_is_other_over_baseline() {
        let side = |cpu_us_per_req| Side {
            cpu_us_per_req,
            rps: 1.0,
            cpu_pct: 40.0,
            loadgen_cpu_pct: 50.0,
        };
        let round = |sides| Round {
            transport: "ws".to_owned(),
            conns: 16,
            other: "typed-rpc",
            sides,
        };
        assert_eq!(round(Some([side(4.0), side(5.0)])).ratio(), Some(1.25));
        assert_eq!(round(None).ratio(), None);
        assert!(side(1.0).saturated(40) && !side(1.0).saturated(50));
    }
}
