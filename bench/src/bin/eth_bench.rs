//! The eth-node's API on typed-rpc against the same API on jsonrpsee 0.26
//! (`eth_server`, both calling the same chain), in one run, alternating:
//!
//! ```text
//! eth_bench batch  [--runs 5] [--conns 8] [--duration 5]        # batches of 100 eth_getBalance over HTTP
//! eth_bench fanout [--runs 3] [--subscribers 1000] [--duration 10] # newHeads to 1 000 WebSocket subscribers
//! ```
//!
//! `batch`: `--conns` keep-alive HTTP/1.1 connections, each with one batch
//! of 100 `eth_getBalance` calls (the wallet pattern) in flight, for
//! `--duration` seconds after a one-second warm-up; calls per second and
//! the server's CPU time per call (`/proc/PID/task/*/schedstat`). Every
//! reply is checked to hold 100 results.
//!
//! `fanout`: the servers mine a block every 100 ms; `--subscribers`
//! WebSocket connections each subscribe to `newHeads`, then for
//! `--duration` seconds every notification's arrival is noted. Reported:
//! notifications delivered per second, the server's CPU per delivered
//! notification, and per block how far the slowest subscriber trailed the
//! first (the spread of one block's arrivals; median and worst over the
//! blocks every subscriber received).
//!
//! The servers run pinned to CPU 0, this process (one thread) to CPU 1:
//! run it as `taskset -c 1 eth_bench ...` (bench/run.sh eth does).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use typed_rpc_bench::harness::{self, ServerSpec, median, range};
use typed_rpc_bench::{eth, procstat};

const ACCOUNTS: [&str; 10] = [
    "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
    "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
    "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
    "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc",
    "0x976ea74026e726554db657fa54763abd0c3a0aa9",
    "0x14dc79964da2c08b23698b3d3cc7ca32193d9955",
    "0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f",
    "0xa0ee7a142d267c1f36714e4a8f75612f20a79720",
];
const BATCH: usize = 100;
const WARMUP: Duration = Duration::from_secs(1);

fn spec(name: &'static str, which: &'static str, port: u16, mining: bool) -> ServerSpec {
    let addr: &'static str = Box::leak(format!("127.0.0.1:{port}").into_boxed_str());
    let mut args = vec![which, "--addr", addr];
    if mining {
        args.extend(["--block-time-ms", "100"]);
    }
    ServerSpec {
        name,
        bin: "eth_server",
        args,
        http_url: Box::leak(format!("http://{addr}/").into_boxed_str()),
        ws_url: Box::leak(format!("ws://{addr}/").into_boxed_str()),
    }
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().ok_or("batch or fanout")?;
    let (mut runs, mut conns, mut subscribers, mut duration) = (None, 8u64, 1000usize, None);
    for (flag, value) in harness::flag_pairs(args)? {
        let number = || value.parse::<u64>().map_err(|_| format!("{flag}: a number"));
        match flag.as_str() {
            "--runs" => runs = Some(number()? as usize),
            "--conns" => conns = number()?,
            "--subscribers" => subscribers = number()? as usize,
            "--duration" => duration = Some(Duration::from_secs(number()?)),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    harness::check_pinning()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let dir = harness::bin_dir();
    match mode.as_str() {
        "batch" => {
            let specs = [spec("typed-rpc", "ours", 9401, false), spec("jsonrpsee", "jsonrpsee", 9402, false)];
            let running = specs.iter().map(|s| harness::start_server(&dir, s, s.http_url)).collect::<Result<Vec<_>, _>>()?;
            let (runs, duration) = (runs.unwrap_or(5), duration.unwrap_or(Duration::from_secs(5)));
            let mut table = vec![Vec::new(), Vec::new()];
            for run in 0..runs {
                for turn in 0..2 {
                    let index = (run + turn) % 2;
                    eprintln!("# batch run {} of {runs}: {}", run + 1, specs[index].name);
                    let pid = running[index].pid();
                    table[index].push(runtime.block_on(batch_window(specs[index].http_url, conns, duration, &pid))?);
                }
            }
            print_batch(&table, conns, duration);
        }
        "fanout" => {
            let specs = [spec("typed-rpc", "ours", 9403, true), spec("jsonrpsee", "jsonrpsee", 9404, true)];
            let running = specs.iter().map(|s| harness::start_server(&dir, s, s.http_url)).collect::<Result<Vec<_>, _>>()?;
            let (runs, duration) = (runs.unwrap_or(3), duration.unwrap_or(Duration::from_secs(10)));
            let mut table = vec![Vec::new(), Vec::new()];
            for run in 0..runs {
                for turn in 0..2 {
                    let index = (run + turn) % 2;
                    eprintln!("# fanout run {} of {runs}: {}", run + 1, specs[index].name);
                    let pid = running[index].pid();
                    table[index].push(runtime.block_on(fanout_window(specs[index].ws_url, subscribers, duration, &pid))?);
                }
            }
            print_fanout(&table, subscribers, duration);
        }
        other => return Err(format!("unknown mode {other}: batch or fanout")),
    }
    Ok(())
}

/// One batch window's figures.
#[derive(Clone, Copy)]
struct BatchRun {
    calls_per_s: f64,
    server_ns_per_call: f64,
}

async fn batch_window(url: &str, conns: u64, duration: Duration, pid: &str) -> Result<BatchRun, String> {
    let accounts: Vec<String> = ACCOUNTS.iter().map(|a| a.to_string()).collect();
    let body = Bytes::from(eth::balance_batch(BATCH, &accounts));
    let addr = url.trim_start_matches("http://").trim_end_matches('/').to_owned();
    let (batches, errors, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
    let mut workers = Vec::new();
    for _ in 0..conns {
        let stream = TcpStream::connect(&addr).await.map_err(|e| format!("connect {addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let (body, addr, batches, errors, stop) = (body.clone(), addr.clone(), batches.clone(), errors.clone(), stop.clone());
        workers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let request = hyper::Request::post("/")
                    .header("host", &addr)
                    .header("content-type", "application/json")
                    .body(Full::new(body.clone()))
                    .expect("a request");
                let Ok(response) = sender.send_request(request).await else { break };
                let Ok(reply) = response.into_body().collect().await.map(|b| b.to_bytes()) else { break };
                if count(&reply, b"\"result\"") == BATCH {
                    batches.fetch_add(1, Ordering::Relaxed);
                } else {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    tokio::time::sleep(WARMUP).await;
    let (cpu0, count0, start) = (procstat::cpu_nanos(pid).ok_or("server CPU")?, batches.load(Ordering::Relaxed), Instant::now());
    tokio::time::sleep(duration).await;
    let (cpu1, count1, elapsed) = (procstat::cpu_nanos(pid).ok_or("server CPU")?, batches.load(Ordering::Relaxed), start.elapsed());
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = worker.await;
    }
    if errors.load(Ordering::Relaxed) > 0 {
        return Err(format!("{url}: {} replies without 100 results", errors.load(Ordering::Relaxed)));
    }
    let calls = ((count1 - count0) * BATCH as u64) as f64;
    Ok(BatchRun { calls_per_s: calls / elapsed.as_secs_f64(), server_ns_per_call: (cpu1 - cpu0) as f64 / calls })
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).filter(|window| *window == needle).count()
}

fn print_batch(table: &[Vec<BatchRun>], conns: u64, duration: Duration) {
    println!("batches of {BATCH} eth_getBalance over HTTP, {conns} connections, {duration:?} windows, {} runs, medians", table[0].len());
    println!("{:<12} {:>12} {:>18}", "server", "calls/s", "server ns/call");
    for (name, runs) in ["typed-rpc", "jsonrpsee"].iter().zip(table) {
        println!(
            "{name:<12} {:>12.0} {:>18.0}",
            median(runs.iter().map(|r| r.calls_per_s).collect()),
            median(runs.iter().map(|r| r.server_ns_per_call).collect())
        );
    }
    ratio("typed-rpc / jsonrpsee, calls/s", table[0].iter().zip(&table[1]).map(|(a, b)| a.calls_per_s / b.calls_per_s).collect());
    ratio("jsonrpsee / typed-rpc, server CPU per call", table[0].iter().zip(&table[1]).map(|(a, b)| b.server_ns_per_call / a.server_ns_per_call).collect());
}

fn ratio(name: &str, values: Vec<f64>) {
    let (lo, hi) = range(&values);
    println!("{name:<46} {:.2} ({lo:.2}-{hi:.2})", median(values));
}

/// One fan-out window's figures.
#[derive(Clone, Copy)]
struct FanoutRun {
    per_s: f64,
    server_ns: f64,
    spread_p50_ms: f64,
    spread_max_ms: f64,
    complete_blocks: usize,
}

/// Per block: first and last arrival, and how many subscribers it reached.
type Arrivals = Arc<Mutex<HashMap<u64, (Instant, Instant, usize)>>>;

async fn fanout_window(url: &str, subscribers: usize, duration: Duration, pid: &str) -> Result<FanoutRun, String> {
    let arrivals: Arrivals = Arc::default();
    let (measuring, delivered) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
    let mut readers = Vec::new();
    for _ in 0..subscribers {
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await.map_err(|e| format!("{url}: {e}"))?;
        let subscribe = r#"{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}"#;
        socket.send(Message::text(subscribe)).await.map_err(|e| e.to_string())?;
        let (arrivals, measuring, delivered) = (arrivals.clone(), measuring.clone(), delivered.clone());
        readers.push(tokio::spawn(async move {
            while let Some(Ok(message)) = socket.next().await {
                let Message::Text(text) = message else { continue };
                let Some(number) = block_number(text.as_str()) else { continue };
                if !measuring.load(Ordering::Relaxed) {
                    continue;
                }
                let now = Instant::now();
                delivered.fetch_add(1, Ordering::Relaxed);
                let mut arrivals = arrivals.lock().unwrap();
                let entry = arrivals.entry(number).or_insert((now, now, 0));
                entry.1 = now;
                entry.2 += 1;
            }
        }));
    }
    tokio::time::sleep(WARMUP).await;
    measuring.store(true, Ordering::Relaxed);
    let (cpu0, start) = (procstat::cpu_nanos(pid).ok_or("server CPU")?, Instant::now());
    tokio::time::sleep(duration).await;
    measuring.store(false, Ordering::Relaxed);
    let (cpu1, elapsed) = (procstat::cpu_nanos(pid).ok_or("server CPU")?, start.elapsed());
    for reader in &readers {
        reader.abort();
    }
    let notifications = delivered.load(Ordering::Relaxed) as f64;
    let arrivals = arrivals.lock().unwrap();
    let spreads: Vec<f64> = arrivals
        .values()
        .filter(|(_, _, reached)| *reached == subscribers)
        .map(|(first, last, _)| (*last - *first).as_secs_f64() * 1000.0)
        .collect();
    if spreads.is_empty() {
        return Err(format!("{url}: no block reached all {subscribers} subscribers"));
    }
    Ok(FanoutRun {
        per_s: notifications / elapsed.as_secs_f64(),
        server_ns: (cpu1 - cpu0) as f64 / notifications,
        spread_max_ms: spreads.iter().copied().fold(0.0, f64::max),
        complete_blocks: spreads.len(),
        spread_p50_ms: median(spreads),
    })
}

/// The block number of a `newHeads` notification, from its `"number":"0x…"`.
fn block_number(text: &str) -> Option<u64> {
    let at = text.find(r#""number":"0x"#)? + r#""number":"0x"#.len();
    let digits = &text[at..at + text[at..].find('"')?];
    u64::from_str_radix(digits, 16).ok()
}

fn print_fanout(table: &[Vec<FanoutRun>], subscribers: usize, duration: Duration) {
    println!("newHeads to {subscribers} WebSocket subscribers, a block every 100 ms, {duration:?} windows, {} runs, medians", table[0].len());
    println!("{:<12} {:>14} {:>16} {:>18} {:>18} {:>8}", "server", "notifications/s", "server ns/notif", "spread p50 (ms)", "spread max (ms)", "blocks");
    for (name, runs) in ["typed-rpc", "jsonrpsee"].iter().zip(table) {
        let of = |f: fn(&FanoutRun) -> f64| median(runs.iter().map(f).collect());
        println!(
            "{name:<12} {:>14.0} {:>16.0} {:>18.2} {:>18.2} {:>8.0}",
            of(|r| r.per_s),
            of(|r| r.server_ns),
            of(|r| r.spread_p50_ms),
            of(|r| r.spread_max_ms),
            of(|r| r.complete_blocks as f64)
        );
    }
    ratio("jsonrpsee / typed-rpc, server CPU per notification", table[0].iter().zip(&table[1]).map(|(a, b)| b.server_ns / a.server_ns).collect());
}
