//! The A2A benchmark (issues 22 and 28): our `text-agent` against the
//! official Python SDK's reference server (`examples/a2a/tests/python/
//! reference_agent.py`, the same agent on the SDK's `DefaultRequestHandler`,
//! Starlette and uvicorn), doing the same work on the same machine, in one
//! run:
//!
//! - `SendMessage` with `returnImmediately` + `GetTask` (`unary`);
//! - `SendStreamingMessage` of a 100-event task (`stream`);
//! - `SendStreamingMessage` of a 1 MB `upper`, one at a time (`1mb`): the
//!   time to its last event and the server's CPU for it; both agents cut
//!   the text in the same 256 chunks.
//!
//! Both servers run pinned to CPU 0 (`taskset -c 0`), so requests/s is per
//! core; the load (`typed_rpc_bench::a2a_load`) runs in this process, which
//! `bench/run.sh a2a` pins to CPU 1. Each `unary` and `stream` case has a
//! warm-up, then a measured window in which the server's CPU time is read
//! from `/proc/PID/task/*/schedstat` at both ends; the cases take turns
//! (ours, then Python, for each workload), `--runs` times, and the ratios
//! are given for each run and as their median. The `1mb` case alternates
//! the two agents `--big` times each after one stream of warm-up.
//!
//! ```text
//! a2a_bench [--duration 10] [--warmup 2] [--conns 16] [--stream-conns 4]
//!           [--runs 3] [--big 5]
//!           [--agent PATH] [--python-packages DIR] [--reference PATH]
//! ```

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use typed_rpc_bench::a2a_load::{self, BIG_CHUNKS, BIG_WORDS, STREAM_EVENTS, Tally, Workload};
use typed_rpc_bench::harness::{self, SERVER_CPU};
use typed_rpc_bench::procstat;

struct Options {
    duration: Duration,
    warmup: Duration,
    conns: usize,
    stream_conns: usize,
    runs: usize,
    big: usize,
    agent: String,
    python_packages: String,
    reference: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        conns: 16,
        stream_conns: 4,
        runs: 3,
        big: 5,
        agent: "../target/release/text-agent".into(),
        python_packages: "../target/a2a-python".into(),
        reference: "../examples/a2a/tests/python/reference_agent.py".into(),
    };
    let seconds = |v: &str| {
        v.parse()
            .map(Duration::from_secs_f64)
            .map_err(|_| "seconds")
    };
    let count = |v: &str| v.parse::<usize>().map_err(|_| "a number");
    for (flag, value) in harness::flag_pairs(std::env::args().skip(1))? {
        let bad = |why: &str| format!("{flag}: {why}");
        match flag.as_str() {
            "--duration" => options.duration = seconds(&value).map_err(bad)?,
            "--warmup" => options.warmup = seconds(&value).map_err(bad)?,
            "--conns" => options.conns = count(&value).map_err(bad)?,
            "--stream-conns" => options.stream_conns = count(&value).map_err(bad)?,
            "--runs" => options.runs = count(&value).map_err(bad)?.max(1),
            "--big" => options.big = count(&value).map_err(bad)?,
            "--agent" => options.agent = value,
            "--python-packages" => options.python_packages = value,
            "--reference" => options.reference = value,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// An agent process pinned to the server CPU, killed on drop.
struct Agent {
    name: &'static str,
    child: Child,
    /// The JSON-RPC endpoint.
    url: String,
}

impl Agent {
    /// Starts `program args --listen 127.0.0.1:0` and reads the
    /// `listening on http://ADDR` line every agent here prints first.
    fn start(name: &'static str, mut command: Command) -> Result<Agent, String> {
        command
            .args(["--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|err| format!("start {name}: {err}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        // The rest is drained, so that an agent never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let Some(base) = first.strip_prefix("listening on ") else {
            let _ = child.kill();
            return Err(format!("{name} printed {first:?}, not `listening on`"));
        };
        Ok(Agent {
            name,
            url: format!("{base}/a2a"),
            child,
        })
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pinned(program: &str) -> Command {
    let mut command = Command::new("taskset");
    command.args(["-c", SERVER_CPU, program]);
    command
}

/// One case measured.
struct Measured {
    agent: &'static str,
    workload: Workload,
    tally: Tally,
    window: Duration,
    server_cpu: Duration,
}

fn measure(
    runtime: &tokio::runtime::Runtime,
    agent: &Agent,
    workload: Workload,
    options: &Options,
) -> Result<Measured, String> {
    let conns = match workload {
        Workload::Unary => options.conns,
        Workload::Stream => options.stream_conns,
    };
    let warm = Instant::now() + options.warmup;
    runtime.block_on(a2a_load::run(&agent.url, workload, conns, warm));
    let cpu = || procstat::cpu_nanos(&agent.pid()).ok_or(format!("{}: no CPU time", agent.name));
    let (cpu_before, started) = (cpu()?, Instant::now());
    let tally = runtime.block_on(a2a_load::run(
        &agent.url,
        workload,
        conns,
        started + options.duration,
    ));
    let (cpu_after, window) = (cpu()?, started.elapsed());
    Ok(Measured {
        agent: agent.name,
        workload,
        tally,
        window,
        server_cpu: Duration::from_nanos(cpu_after.saturating_sub(cpu_before)),
    })
}

fn main() -> Result<(), String> {
    let options = options()?;
    harness::check_pinning()?;
    let ours = Agent::start("typed-rpc text-agent", pinned(&options.agent))?;
    let mut python = pinned("python3");
    python
        .env("PYTHONPATH", &options.python_packages)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONUNBUFFERED", "1")
        .arg(&options.reference);
    let reference = Agent::start("Python SDK reference", python)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| err.to_string())?;
    let mut ratios = Vec::new();
    for run in 1..=options.runs {
        let mut results = Vec::new();
        for workload in [Workload::Unary, Workload::Stream] {
            for agent in [&ours, &reference] {
                eprintln!("# run {run}: {} {workload:?}", agent.name);
                results.push(measure(&runtime, agent, workload, &options)?);
            }
        }
        println!("run {run} of {}", options.runs);
        ratios.push(print_table(&mut results, &options));
        println!();
    }
    print_medians(&ratios);
    if options.big > 0 {
        let big = measure_big(&runtime, [&ours, &reference], options.big)?;
        print_big(&big, options.big);
    }
    Ok(())
}

/// One agent's `1mb` streams: time to the last event and server CPU, each.
struct Big {
    agent: &'static str,
    times: Vec<Duration>,
    cpus: Vec<Duration>,
}

/// `count` 1 MB streams per agent, the agents alternating, after one each
/// of warm-up.
fn measure_big(
    runtime: &tokio::runtime::Runtime,
    agents: [&Agent; 2],
    count: usize,
) -> Result<Vec<Big>, String> {
    let mut big: Vec<Big> = agents
        .iter()
        .map(|agent| Big {
            agent: agent.name,
            times: Vec::new(),
            cpus: Vec::new(),
        })
        .collect();
    for round in 0..=count {
        for (agent, seen) in agents.iter().zip(big.iter_mut()) {
            eprintln!("# 1mb stream {round} of {count}: {}", agent.name);
            let cpu =
                || procstat::cpu_nanos(&agent.pid()).ok_or(format!("{}: no CPU time", agent.name));
            let before = cpu()?;
            let message_id = format!("bench-1mb-{}-{round}", std::process::id());
            let elapsed = runtime
                .block_on(a2a_load::big_stream(&agent.url, &message_id))
                .map_err(|err| format!("{}: 1 MB stream: {err}", agent.name))?;
            let used = Duration::from_nanos(cpu()?.saturating_sub(before));
            if round > 0 {
                seen.times.push(elapsed);
                seen.cpus.push(used);
            }
        }
    }
    Ok(big)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn print_big(big: &[Big], count: usize) {
    println!(
        "1 MB upper, streamed: {BIG_WORDS} characters in {BIG_CHUNKS} chunks, one stream at a \
         time, {count} per agent (medians, min-max)"
    );
    println!(
        "{:<22} {:>24} {:>24}",
        "server", "time to last event", "server CPU"
    );
    let stats = |values: &[Duration]| {
        let mut ms: Vec<f64> = values.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        let (min, max) = (
            ms.iter().copied().fold(f64::INFINITY, f64::min),
            ms.iter().copied().fold(0.0, f64::max),
        );
        (median(&mut ms), min, max)
    };
    for seen in big {
        let (time, time_min, time_max) = stats(&seen.times);
        let (cpu, cpu_min, cpu_max) = stats(&seen.cpus);
        println!(
            "{:<22} {:>8.0} ms ({:.0}-{:.0}) {:>8.0} ms ({:.0}-{:.0})",
            seen.agent, time, time_min, time_max, cpu, cpu_min, cpu_max
        );
    }
    if let [ours, python] = big {
        let ratio = |a: &[Duration], b: &[Duration]| stats(b).0 / stats(a).0;
        println!(
            "Python / ours: time to last event {:.1}x, server CPU {:.1}x",
            ratio(&ours.times, &python.times),
            ratio(&ours.cpus, &python.cpus)
        );
    }
}

/// The run's ratios, ours / Python, per workload: requests/s and requests
/// per server CPU-second.
struct Ratios {
    workload: Workload,
    rate: f64,
    per_cpu: f64,
}

fn print_medians(runs: &[Vec<Ratios>]) {
    println!("ours / Python over {} runs, median (min-max):", runs.len());
    for workload in [Workload::Unary, Workload::Stream] {
        let of = |pick: fn(&Ratios) -> f64| {
            let mut values: Vec<f64> = runs
                .iter()
                .flatten()
                .filter(|r| r.workload == workload)
                .map(pick)
                .collect();
            let (min, max) = (
                values.iter().copied().fold(f64::INFINITY, f64::min),
                values.iter().copied().fold(0.0, f64::max),
            );
            (median(&mut values), min, max)
        };
        let (rate, rate_min, rate_max) = of(|r| r.rate);
        let (cpu, cpu_min, cpu_max) = of(|r| r.per_cpu);
        println!(
            "{:<7} requests/s {rate:.1}x ({rate_min:.1}-{rate_max:.1}), requests per CPU-second \
             {cpu:.1}x ({cpu_min:.1}-{cpu_max:.1})",
            format!("{workload:?}").to_lowercase()
        );
    }
    println!();
}

fn print_table(results: &mut [Measured], options: &Options) -> Vec<Ratios> {
    println!(
        "A2A: {:?} windows after {:?} warm-up; unary: {} connections, \
         SendMessage(returnImmediately) + GetTask; stream: {} connections, \
         SendStreamingMessage of {STREAM_EVENTS} events; servers on CPU {SERVER_CPU}",
        options.duration, options.warmup, options.conns, options.stream_conns
    );
    println!(
        "{:<7} {:<22} {:>10} {:>8} {:>14} {:>12} {:>12}",
        "load", "server", "requests/s", "errors", "CPU/request", "server CPU", "p99"
    );
    for m in results.iter_mut() {
        let per_request = m.server_cpu.as_secs_f64() / m.tally.requests.max(1) as f64;
        let p99_ms = m.tally.quantile_us(0.99) / 1e3;
        println!(
            "{:<7} {:<22} {:>10.0} {:>8} {:>11.0} us {:>11.0}% {:>9.2} ms",
            format!("{:?}", m.workload).to_lowercase(),
            m.agent,
            m.tally.requests as f64 / m.window.as_secs_f64(),
            m.tally.errors,
            per_request * 1e6,
            100.0 * m.server_cpu.as_secs_f64() / m.window.as_secs_f64(),
            p99_ms,
        );
    }
    let mut ratios = Vec::new();
    for pair in results.chunks(2) {
        let [ours, python] = pair else { continue };
        let per_cpu = |m: &Measured| m.tally.requests as f64 / m.server_cpu.as_secs_f64();
        let rate = |m: &Measured| m.tally.requests as f64 / m.window.as_secs_f64();
        println!(
            "{:<7} ours / Python: requests/s {:.1}x, requests per CPU-second {:.1}x ({:.0} vs {:.0})",
            format!("{:?}", ours.workload).to_lowercase(),
            rate(ours) / rate(python),
            per_cpu(ours) / per_cpu(python),
            per_cpu(ours),
            per_cpu(python),
        );
        ratios.push(Ratios {
            workload: ours.workload,
            rate: rate(ours) / rate(python),
            per_cpu: per_cpu(ours) / per_cpu(python),
        });
    }
    ratios
}
