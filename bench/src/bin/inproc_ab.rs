//! In-process dispatch timed interleaved: rounds of ours, jsonrpsee and floor
//! back to back, so that a change in the machine's background load hits all
//! columns alike; the ratios are taken within each round, then their median.
//! Criterion (`benches/inprocess.rs`) measures one function after the other,
//! which on a shared 2-core machine lets background load skew the ratios.
//!
//! ```text
//! inproc_ab [--rounds 200] [--round-ms 2] [case ...]
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use typed_rpc_bench::inproc::{Column, Columns, cases};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn main() {
    let mut rounds = 200usize;
    let mut round = Duration::from_millis(2);
    let mut only = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--round-ms" => {
                round = Duration::from_secs_f64(
                    args.next()
                        .and_then(|v| v.parse::<f64>().ok())
                        .expect("--round-ms MS")
                        / 1e3,
                )
            }
            case => only.push(case.to_owned()),
        }
    }
    println!("| case | ours | jsonrpsee | floor | ours / floor | jsonrpsee / ours |");
    println!("|---|---:|---:|---:|---:|---:|");
    for case in cases() {
        if !only.is_empty() && !only.iter().any(|c| c == case.name) {
            continue;
        }
        let mut cols = Columns::default();
        let columns = [Column::Ours, case.jsonrpsee, Column::Floor];
        // Check, and size each column's batch of iterations to about one round.
        let mut iters = [0u64; 3];
        for (i, &column) in columns.iter().enumerate() {
            (case.check)(cols.run(column, case.request).as_deref())
                .unwrap_or_else(|e| panic!("{} {column:?}: {e}", case.name));
            let start = Instant::now();
            let mut n = 0u64;
            while start.elapsed() < round {
                cols.time(column, black_box(case.request));
                n += 1;
            }
            iters[i] = n.max(1);
        }
        let mut times: [Vec<f64>; 3] = Default::default();
        for r in 0..rounds {
            // Rotate the order so no column always runs first.
            for k in 0..3 {
                let i = (r + k) % 3;
                let start = Instant::now();
                for _ in 0..iters[i] {
                    cols.time(columns[i], black_box(case.request));
                }
                times[i].push(start.elapsed().as_nanos() as f64 / iters[i] as f64);
            }
        }
        let ratio = |a: usize, b: usize| {
            median(times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect())
        };
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} |",
            case.name,
            fmt_ns(median(times[0].clone())),
            fmt_ns(median(times[1].clone())),
            fmt_ns(median(times[2].clone())),
            ratio(0, 2),
            ratio(1, 0),
        );
    }
}
