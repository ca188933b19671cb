//! The streaming benchmark: items per second and server CPU per item for
//! one stream of N small items (`count(n)`, the numbers `0..n`), over
//! typed-rpc's Server-Sent Events, typed-rpc's WebSocket subscription,
//! jsonrpsee 0.26's WebSocket subscription and the floors', one for each
//! wire form (`typed_rpc_bench::streams`).
//!
//! The four servers (`stream_server`) run pinned to CPU 0 (`taskset -c
//! 0`) for the whole benchmark; for each case the client (`streamgen`),
//! pinned to CPU 1, reads one stream as fast as it comes, and the server's
//! CPU time (`/proc/PID/task/*/schedstat`) is read when the client sends
//! the call (`START`) and when it has the last item (`END`). Each run
//! measures every case once, the cases taking turns in a rotating order so
//! that the machine's background load hits them alike; the table gives
//! each figure's median over the runs, the ratios are taken within each run
//! and then the median (and range).
//!
//! ```text
//! stream_bench [--runs 5] [--items 500000]
//! ```
//!
//! `bench/run.sh stream` builds everything and calls this.

use std::path::Path;

use typed_rpc_bench::harness::{self, ServerSpec, field, median, range};
use typed_rpc_bench::procstat;

/// One stream measured: the case's name, the server and the client's URL.
struct Case {
    name: &'static str,
    server: usize,
    url: &'static str,
}

const CASES: [Case; 5] = [
    Case {
        name: "typed-rpc SSE",
        server: 0,
        url: "http://127.0.0.1:9311/",
    },
    Case {
        name: "typed-rpc WebSocket",
        server: 0,
        url: "ws://127.0.0.1:9311/",
    },
    Case {
        name: "jsonrpsee WebSocket",
        server: 1,
        url: "ws://127.0.0.1:9211/",
    },
    Case {
        name: "floor WebSocket",
        server: 2,
        url: "ws://127.0.0.1:9111/",
    },
    Case {
        name: "floor SSE",
        server: 3,
        url: "http://127.0.0.1:9112/",
    },
];

const OURS_SSE: usize = 0;
const OURS_WS: usize = 1;
const JSONRPSEE: usize = 2;
const FLOOR: usize = 3;
const FLOOR_SSE: usize = 4;

fn servers() -> [ServerSpec; 4] {
    let spec = |name, which, addr, url| ServerSpec {
        name,
        bin: "stream_server",
        args: vec![which, "--addr", addr],
        http_url: url,
        ws_url: url,
    };
    [
        spec(
            "typed-rpc",
            "ours",
            "127.0.0.1:9311",
            "http://127.0.0.1:9311/",
        ),
        spec(
            "jsonrpsee",
            "jsonrpsee",
            "127.0.0.1:9211",
            "ws://127.0.0.1:9211/",
        ),
        spec("floor", "floor", "127.0.0.1:9111", "ws://127.0.0.1:9111/"),
        spec(
            "floor (SSE)",
            "floor-sse",
            "127.0.0.1:9112",
            "http://127.0.0.1:9112/",
        ),
    ]
}

/// What one stream measured.
#[derive(Clone, Copy)]
struct Measured {
    items_per_s: f64,
    /// Server CPU per item, ns.
    server_ns: f64,
    /// The client's CPU use over the window, % of one CPU.
    client_pct: f64,
}

fn measure(dir: &Path, case: &Case, pid: &str, items: u64) -> Result<Measured, String> {
    let args = ["--url", case.url, "--items", &items.to_string()].map(str::to_owned);
    let (child, stdout) = harness::spawn_client(dir, "streamgen", &args)?;
    let window = harness::read_window(child, stdout, || procstat::cpu_nanos(pid))?;
    let received = field(&window.result, "items");
    if received != items as f64 || field(&window.result, "errors") != 0.0 {
        return Err(format!("{}: {}", case.name, window.result));
    }
    Ok(Measured {
        items_per_s: field(&window.result, "items_per_s"),
        server_ns: window.server_cpu as f64 / received,
        client_pct: 100.0 * field(&window.result, "cpu_us")
            / (field(&window.result, "window_s") * 1e6),
    })
}

fn main() -> Result<(), String> {
    let (mut runs, mut items) = (5usize, 500_000u64);
    for (flag, value) in harness::flag_pairs(std::env::args().skip(1))? {
        match flag.as_str() {
            "--runs" => runs = value.parse().map_err(|_| "--runs: a number")?,
            "--items" => items = value.parse().map_err(|_| "--items: a number")?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    harness::check_pinning()?;
    let dir = harness::bin_dir();
    let specs = servers();
    let running = specs
        .iter()
        .map(|spec| harness::start_server(&dir, spec, spec.http_url))
        .collect::<Result<Vec<_>, _>>()?;
    let pids: Vec<String> = running.iter().map(|r| r.pid()).collect();
    // One short stream each first: connections, buffers and page faults
    // of a first stream stay out of the runs.
    for case in &CASES {
        measure(&dir, case, &pids[case.server], items / 10)?;
    }
    let mut table: Vec<Vec<Measured>> = vec![Vec::new(); CASES.len()];
    for run in 0..runs {
        eprintln!("# stream run {} of {runs}", run + 1);
        for turn in 0..CASES.len() {
            let index = (run + turn) % CASES.len();
            let case = &CASES[index];
            table[index].push(measure(&dir, case, &pids[case.server], items)?);
        }
    }
    print_table(&table, items);
    Ok(())
}

fn print_table(table: &[Vec<Measured>], items: u64) {
    println!(
        "streams of {items} u64 items, {} runs, medians",
        table[0].len()
    );
    println!(
        "{:<22} {:>12} {:>16} {:>12}",
        "case", "items/s", "server ns/item", "client CPU"
    );
    for (case, runs) in CASES.iter().zip(table) {
        let of = |f: fn(&Measured) -> f64| median(runs.iter().map(f).collect());
        println!(
            "{:<22} {:>12.0} {:>16.0} {:>11.0}%",
            case.name,
            of(|m| m.items_per_s),
            of(|m| m.server_ns),
            of(|m| m.client_pct)
        );
    }
    println!();
    println!("ratios within a run: median (range)");
    let ratio = |name: &str, f: &dyn Fn(usize) -> f64| {
        let values: Vec<f64> = (0..table[0].len()).map(f).collect();
        let (lo, hi) = range(&values);
        println!("{name:<44} {:.2} ({lo:.2}-{hi:.2})", median(values));
    };
    let cpu = |case: usize, run: usize| table[case][run].server_ns;
    let rate = |case: usize, run: usize| table[case][run].items_per_s;
    ratio("typed-rpc SSE / SSE floor, server CPU per item", &|r| {
        cpu(OURS_SSE, r) / cpu(FLOOR_SSE, r)
    });
    ratio(
        "typed-rpc SSE / WebSocket floor, server CPU per item",
        &|r| cpu(OURS_SSE, r) / cpu(FLOOR, r),
    );
    ratio("SSE floor / WebSocket floor, server CPU per item", &|r| {
        cpu(FLOOR_SSE, r) / cpu(FLOOR, r)
    });
    ratio(
        "typed-rpc WebSocket / WebSocket floor, server CPU per item",
        &|r| cpu(OURS_WS, r) / cpu(FLOOR, r),
    );
    ratio("jsonrpsee / WebSocket floor, server CPU per item", &|r| {
        cpu(JSONRPSEE, r) / cpu(FLOOR, r)
    });
    ratio("typed-rpc SSE / jsonrpsee, items/s", &|r| {
        rate(OURS_SSE, r) / rate(JSONRPSEE, r)
    });
    ratio("typed-rpc WebSocket / jsonrpsee, items/s", &|r| {
        rate(OURS_WS, r) / rate(JSONRPSEE, r)
    });
}
