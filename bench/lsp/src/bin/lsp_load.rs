//! Drives language servers over their stdio with the benchmark's mix, one
//! after another in each run, and prints messages per second and the
//! server's CPU per round (one `didChange`, one `hover`, one `completion`),
//! with medians and each server's ratio to the first, run by run.
//!
//! ```text
//! lsp-load [--runs 5] [--rounds 20000] [--warmup 2000] [--window 16] NAME=BINARY...
//! ```

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{Semaphore, watch};
use typed_rpc_bench::procstat::cpu_nanos;
use typed_rpc_bench_lsp::mix;

struct Options {
    runs: usize,
    rounds: u64,
    warmup: u64,
    window: usize,
    servers: Vec<(String, String)>,
}

/// One server's figures in one run.
#[derive(Clone, Copy, Debug)]
struct Measured {
    messages_per_second: f64,
    cpu_micros_per_round: f64,
}

/// What the reader counts.
#[derive(Default)]
struct Counts {
    errors: AtomicU64,
    superseded: AtomicU64,
    /// `null` results.
    empty: AtomicU64,
    diagnostics: AtomicU64,
}

fn main() {
    let options = options();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut results: Vec<Vec<Measured>> = vec![Vec::new(); options.servers.len()];
    for run in 1..=options.runs {
        for (index, (name, binary)) in options.servers.iter().enumerate() {
            let measured = runtime.block_on(measure(binary, &options));
            println!(
                "run {run} {name:>10}: {:>9.0} messages/s, {:>7.1} µs server CPU per round",
                measured.messages_per_second, measured.cpu_micros_per_round
            );
            results[index].push(measured);
        }
    }
    println!();
    println!(
        "{:>10}  {:>12}  {:>14}  {:>22}  {:>22}",
        "server", "messages/s", "CPU µs/round", "messages/s vs first", "CPU/round vs first"
    );
    for (index, (name, _)) in options.servers.iter().enumerate() {
        let rate: Vec<f64> = results[index]
            .iter()
            .map(|m| m.messages_per_second)
            .collect();
        let cpu: Vec<f64> = results[index]
            .iter()
            .map(|m| m.cpu_micros_per_round)
            .collect();
        // Ratios within each run, then their median.
        let rate_ratio: Vec<f64> = (0..options.runs)
            .map(|run| rate[run] / results[0][run].messages_per_second)
            .collect();
        let cpu_ratio: Vec<f64> = (0..options.runs)
            .map(|run| cpu[run] / results[0][run].cpu_micros_per_round)
            .collect();
        println!(
            "{name:>10}  {:>12.0}  {:>14.1}  {:>22}  {:>22}",
            median(&rate),
            median(&cpu),
            spread(&rate_ratio),
            spread(&cpu_ratio)
        );
    }
}

fn options() -> Options {
    let mut options = Options {
        runs: 5,
        rounds: 20_000,
        warmup: 2_000,
        window: 16,
        servers: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .and_then(|v| v.parse::<u64>().ok())
                .expect("a number after the flag")
        };
        match arg.as_str() {
            "--runs" => options.runs = value() as usize,
            "--rounds" => options.rounds = value(),
            "--warmup" => options.warmup = value(),
            "--window" => options.window = value() as usize,
            server => {
                let (name, binary) = server.split_once('=').expect("servers are NAME=BINARY");
                options.servers.push((name.to_owned(), binary.to_owned()));
            }
        }
    }
    assert!(
        !options.servers.is_empty(),
        "usage: lsp-load [--runs N] [--rounds N] [--warmup N] [--window N] NAME=BINARY..."
    );
    options
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// `median (min-max)`.
fn spread(values: &[f64]) -> String {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{:.2} ({:.2}-{:.2})", median(values), min, max)
}

/// One server, one run: start it, open the document, run the warm-up and
/// the measured rounds, shut it down.
async fn measure(binary: &str, options: &Options) -> Measured {
    let mut child = Command::new(binary)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {binary}: {err}"));
    let pid = child.id().expect("running").to_string();
    let mut writer = BufWriter::new(child.stdin.take().unwrap());
    let counts = Arc::new(Counts::default());
    let (answered_tx, mut answered) = watch::channel(0u64);
    let window = Arc::new(Semaphore::new(options.window));
    let reader = tokio::spawn(read_all(
        child.stdout.take().unwrap(),
        counts.clone(),
        answered_tx,
        window.clone(),
    ));

    send(&mut writer, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}})).await;
    writer.flush().await.unwrap();
    wait_for(&mut answered, 1).await;
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    )
    .await;
    let open = json!({"textDocument": {"uri": mix::URI, "languageId": "tally", "version": 1, "text": mix::text()}});
    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": open}),
    )
    .await;

    let mut id = 1;
    let mut cpu_before = 0;
    let mut started = Instant::now();
    for round in 0..options.warmup + options.rounds {
        if round == options.warmup {
            writer.flush().await.unwrap();
            wait_for(&mut answered, 1 + 2 * options.warmup).await;
            cpu_before = cpu_nanos(&pid).expect("the server's CPU time");
            started = Instant::now();
        }
        let (line, start, end, value) = mix::edit(round);
        let change = json!({
            "textDocument": {"uri": mix::URI, "version": round + 2},
            "contentChanges": [{"range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}, "text": value}],
        });
        send(
            &mut writer,
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": change}),
        )
        .await;
        let (line, character) = mix::position(round);
        let at = json!({"textDocument": {"uri": mix::URI}, "position": {"line": line, "character": character}});
        for method in ["textDocument/hover", "textDocument/completion"] {
            // At most `window` requests wait for their answers.
            if window.available_permits() == 0 {
                writer.flush().await.unwrap();
            }
            window.clone().acquire_owned().await.unwrap().forget();
            send(
                &mut writer,
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": at}),
            )
            .await;
            id += 1;
        }
    }
    writer.flush().await.unwrap();
    wait_for(&mut answered, 1 + 2 * (options.warmup + options.rounds)).await;
    let elapsed = started.elapsed();
    let cpu = cpu_nanos(&pid).expect("the server's CPU time") - cpu_before;
    let errors = counts.errors.load(Ordering::Relaxed);
    assert_eq!(errors, 0, "{binary} answered {errors} requests with errors");

    send(
        &mut writer,
        json!({"jsonrpc": "2.0", "id": id, "method": "shutdown"}),
    )
    .await;
    writer.flush().await.unwrap();
    wait_for(&mut answered, 2 + 2 * (options.warmup + options.rounds)).await;
    send(&mut writer, json!({"jsonrpc": "2.0", "method": "exit"})).await;
    writer.flush().await.unwrap();
    finish(child, writer, reader).await;
    let empty = counts.empty.load(Ordering::Relaxed);
    assert_eq!(
        empty, 1,
        "{binary}: only `shutdown` answers null, {empty} answers did"
    );
    let diagnostics = counts.diagnostics.load(Ordering::Relaxed);
    let versions = 1 + options.warmup + options.rounds;
    assert_eq!(
        diagnostics, versions,
        "{binary}: diagnostics for every version of the document"
    );

    let superseded = counts.superseded.load(Ordering::Relaxed);
    if superseded > 0 {
        eprintln!("{binary}: {superseded} requests superseded (-32801)");
    }
    // Three messages a round, and the diagnostics the server sent back.
    let messages = 3 * options.rounds;
    Measured {
        messages_per_second: messages as f64 / elapsed.as_secs_f64(),
        cpu_micros_per_round: cpu as f64 / 1000.0 / options.rounds as f64,
    }
}

async fn finish(
    mut child: Child,
    writer: BufWriter<ChildStdin>,
    reader: tokio::task::JoinHandle<()>,
) {
    drop(writer);
    match tokio::time::timeout(Duration::from_secs(10), child.wait()).await {
        Ok(status) => assert!(status.unwrap().success(), "the server exits cleanly"),
        Err(_) => panic!("the server did not exit"),
    }
    let _ = reader.await;
}

async fn wait_for(answered: &mut watch::Receiver<u64>, count: u64) {
    let waited = answered.wait_for(|answered| *answered >= count);
    tokio::time::timeout(Duration::from_secs(120), waited)
        .await
        .expect("answers within two minutes")
        .expect("the reader runs");
}

async fn send(writer: &mut BufWriter<ChildStdin>, message: Value) {
    let body = message.to_string();
    writer
        .write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await
        .unwrap();
    writer.write_all(body.as_bytes()).await.unwrap();
}

/// Reads every message the server sends, counting answers (and giving
/// their places in the window back) and diagnostics.
async fn read_all(
    stdout: tokio::process::ChildStdout,
    counts: Arc<Counts>,
    answered: watch::Sender<u64>,
    window: Arc<Semaphore>,
) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = String::new();
    let mut body = Vec::new();
    loop {
        let mut length = None;
        loop {
            line.clear();
            if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        body.resize(length.expect("a Content-Length"), 0);
        reader.read_exact(&mut body).await.unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        if message.get("method").is_some() {
            counts.diagnostics.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        match message.get("error") {
            Some(error) if error["code"] == -32801 => {
                counts.superseded.fetch_add(1, Ordering::Relaxed);
            }
            Some(error) => {
                eprintln!("error answer: {error}");
                counts.errors.fetch_add(1, Ordering::Relaxed);
            }
            // Only `shutdown` answers null: every hover here is on a name.
            None if message["result"].is_null() => {
                counts.empty.fetch_add(1, Ordering::Relaxed);
            }
            None => {}
        }
        if message["id"] != 0 {
            window.add_permits(1);
        }
        answered.send_modify(|answered| *answered += 1);
    }
}
