//! Collects criterion's in-process results over several runs and prints the
//! medians, with the ratios taken within each run.
//!
//! ```text
//! inproc_report collect <criterion dir> <results.tsv>   # after each `cargo bench` run
//! inproc_report table <results.tsv>
//! ```
//!
//! `collect` reads `<group>/<column>/new/estimates.json` (criterion's median
//! estimate, in ns) and appends `run group column ns` lines. `table` prints,
//! per case, the median over runs of each column and of the per-run ratios
//! ours/floor and jsonrpsee/ours.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::Path;

const CASES: [&str; 7] = [
    "add_positional",
    "add_named",
    "add_struct",
    "invalid_params",
    "batch_add_100",
    "notification",
    "batch_sleep_100x1ms",
];

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn collect(dir: &Path, out: &Path) {
    let previous = fs::read_to_string(out).unwrap_or_default();
    let run = previous
        .lines()
        .filter_map(|l| l.split('\t').next()?.parse::<u32>().ok())
        .max()
        .map_or(1, |r| r + 1);
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .expect("the results file");
    for case in CASES {
        let Ok(columns) = fs::read_dir(dir.join(case)) else {
            continue;
        };
        for column in columns.flatten() {
            let name = column.file_name().to_string_lossy().into_owned();
            let Ok(text) = fs::read_to_string(column.path().join("new/estimates.json")) else {
                continue;
            };
            let json: serde_json::Value = serde_json::from_str(&text).expect("criterion JSON");
            let ns = json["median"]["point_estimate"].as_f64().expect("a median");
            writeln!(file, "{run}\t{case}\t{name}\t{ns}").expect("write");
        }
    }
}

fn fmt_ns(ns: f64) -> String {
    if ns.is_nan() {
        "-".to_owned()
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn table(results: &Path) {
    let text = fs::read_to_string(results).expect("the results file");
    // (case, column) -> run -> ns
    let mut data: BTreeMap<(String, String), BTreeMap<u32, f64>> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if let [run, case, column, ns] = f.as_slice() {
            data.entry((case.to_string(), column.to_string()))
                .or_default()
                .insert(run.parse().unwrap_or(0), ns.parse().unwrap_or(f64::NAN));
        }
    }
    let runs = data
        .values()
        .flat_map(|m| m.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let get = |case: &str, column: &str| data.get(&(case.to_owned(), column.to_owned()));
    let ratio = |case: &str, num: &str, den: &str| {
        let (Some(a), Some(b)) = (get(case, num), get(case, den)) else {
            return f64::NAN;
        };
        median(
            a.iter()
                .filter_map(|(run, x)| Some(x / b.get(run)?))
                .collect(),
        )
    };
    println!("In-process dispatch, median of {runs} runs (per-run ratios, then their median):");
    println!();
    println!("| case | ours | jsonrpsee | floor | ours / floor | jsonrpsee / ours |");
    println!("|---|---:|---:|---:|---:|---:|");
    for case in CASES {
        let med = |column: &str| {
            median(
                get(case, column)
                    .map(|m| m.values().copied().collect())
                    .unwrap_or_default(),
            )
        };
        if get(case, "ours").is_none() {
            continue;
        }
        let r = |x: f64| {
            if x.is_nan() {
                "-".to_owned()
            } else {
                format!("{x:.2}")
            }
        };
        println!(
            "| {case} | {} | {} | {} | {} | {} |",
            fmt_ns(med("ours")),
            fmt_ns(med("jsonrpsee")),
            fmt_ns(med("floor")),
            r(ratio(case, "ours", "floor")),
            r(ratio(case, "jsonrpsee", "ours")),
        );
        if let Some(tower) = get(case, "jsonrpsee_tower") {
            println!(
                "| {case} (jsonrpsee via its HTTP service) | | {} | | | {} |",
                fmt_ns(median(tower.values().copied().collect())),
                r(ratio(case, "jsonrpsee_tower", "ours")),
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["collect", dir, out] => collect(Path::new(dir), Path::new(out)),
        ["table", results] => table(Path::new(results)),
        _ => {
            eprintln!(
                "usage: inproc_report collect <criterion dir> <results.tsv> | table <results.tsv>"
            );
            std::process::exit(2);
        }
    }
}
