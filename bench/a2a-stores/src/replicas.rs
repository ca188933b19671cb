//! `text-agent` replicas on one PostgreSQL store (issue 31): what one and
//! two replicas behind nginx serve, and events through a cross-replica
//! subscription, on a throwaway PostgreSQL cluster and nginx started as
//! the tests start them (`typed-rpc-test-support`).
//!
//! - `unary`: `--conns` clients (our `A2aClient`, keep-alive HTTP/1.1)
//!   doing `SendMessage` (`returnImmediately`, `upper`) then `GetTask` of
//!   its task through nginx, in front of replica `a` alone, then of `a`
//!   and `b` (round robin); rounds per second. Over each measured window
//!   the CPU seconds of the load generator (this process), nginx (master
//!   and workers), each replica and PostgreSQL (postmaster and backends)
//!   are read from `/proc`, to show where the machine's cores went.
//! - `cross`: `--stream-conns` clients each making a task on `a` that asks
//!   for input, subscribing to it on `b`, then answering it on `a` with a
//!   99-event `upper`, read to its end through `b`; events per second
//!   delivered through `b` (the rounds' setup included).
//!
//! Each case runs `--runs` times (1 and 2 replicas taking turns); medians.
//!
//! ```text
//! a2a_replica_bench [--duration 10] [--warmup 2] [--conns 16]
//!                   [--stream-conns 4] [--runs 3] [--agent PATH]
//! ```
//!
//! Run through `bench/run.sh a2a-replicas`.

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use typed_rpc::transport::http::HttpClient;
use typed_rpc_a2a::A2aClient;
use typed_rpc_a2a::server::new_id;
use typed_rpc_a2a::text_agent::card;
use typed_rpc_a2a::types::{
    GetTaskRequest, Message, Role, SendMessageConfiguration, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest,
};
use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::nginx::Nginx;
use typed_rpc_test_support::postgres::Postgres;

/// Characters of the `cross` answer: 97 chunks of the agent's 8.
const CROSS_WORDS: usize = 97 * 8;

struct Options {
    duration: Duration,
    warmup: Duration,
    conns: usize,
    stream_conns: usize,
    runs: usize,
    agent: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        conns: 16,
        stream_conns: 4,
        runs: 3,
        agent: "../target/release/text-agent".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|err| format!("{flag}: {err}"));
        match flag.as_str() {
            "--duration" => options.duration = Duration::from_secs(number()?),
            "--warmup" => options.warmup = Duration::from_secs(number()?),
            "--conns" => options.conns = number()? as usize,
            "--stream-conns" => options.stream_conns = number()? as usize,
            "--runs" => options.runs = number()?.max(1) as usize,
            "--agent" => options.agent = value,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// One replica: `text-agent --store <db> --replica <name>`.
struct Replica {
    process: ChildGuard,
    addr: SocketAddr,
}

impl Replica {
    fn start(agent: &str, name: &str, store: &str) -> Replica {
        let mut command = Command::new(agent);
        command
            .args([
                "--listen",
                "127.0.0.1:0",
                "--store",
                store,
                "--replica",
                name,
            ])
            .stderr(Stdio::inherit());
        let patience = Duration::from_secs(30);
        let (process, base) = ChildGuard::serve(&mut command, "listening on ", patience)
            .unwrap_or_else(|err| panic!("replica {name}: {err}"));
        let addr = base.trim_start_matches("http://").parse().unwrap();
        Replica { process, addr }
    }
}

/// Our client of the agent endpoint at `base` (`http://HOST:PORT`).
fn client(base: &str) -> A2aClient<HttpClient> {
    let card = card(&format!("{base}/a2a"));
    typed_rpc_a2a::client::connect(&card, None, |b| b.timeout(Duration::from_secs(30))).unwrap()
}

fn user(text: &str) -> Message {
    Message::text(Role::User, new_id(), text)
}

fn immediately(message: Message) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            return_immediately: true,
            ..Default::default()
        }),
        ..SendMessageRequest::new(message)
    }
}

/// The id of the task a `SendMessage` answered with.
fn task_id(answer: SendMessageResponse) -> Option<String> {
    match answer {
        SendMessageResponse::Task(task) => Some(task.id),
        SendMessageResponse::Message(_) => None,
    }
}

/// One `unary` round: `SendMessage` then `GetTask` of its task.
async fn unary_round(client: &A2aClient<HttpClient>) -> bool {
    let Ok(answer) = client
        .send_message(immediately(user("upper benchmark words")))
        .await
    else {
        return false;
    };
    let Some(id) = task_id(answer) else {
        return false;
    };
    let get = GetTaskRequest {
        id: id.clone(),
        history_length: None,
    };
    client.get_task(get).await.is_ok_and(|task| task.id == id)
}

/// One `cross` round: a task made and answered on `a`, followed on `b`;
/// the events `b` delivered after the answer, `None` on a failure.
async fn cross_round(a: &A2aClient<HttpClient>, b: &A2aClient<HttpClient>) -> Option<u64> {
    let asked = a.send_message(SendMessageRequest::new(user("?"))).await;
    let SendMessageResponse::Task(task) = asked.ok()? else {
        return None;
    };
    let subscribe = SubscribeToTaskRequest {
        id: task.id.clone(),
    };
    let mut events = b.subscribe_to_task(subscribe).await.ok()?;
    events.next().await?.ok()?; // the task as it stands
    let answer = Message {
        task_id: Some(task.id.clone()),
        context_id: Some(task.context_id.clone()),
        ..user(&"x".repeat(CROSS_WORDS))
    };
    a.send_message(immediately(answer)).await.ok()?;
    let mut seen = 0;
    while let Some(event) = events.next().await {
        seen += 1;
        if event.ok()?.ends_task() {
            return Some(seen);
        }
    }
    None
}

/// Runs `clients` loops of `round` until `until`; what they counted and
/// how many rounds failed.
async fn drive<F, R>(clients: Vec<R>, until: Instant, round: F) -> (u64, u64)
where
    R: Send + Sync + 'static,
    F: Fn(Arc<R>) -> futures_util::future::BoxFuture<'static, Option<u64>> + Send + Sync + 'static,
{
    let (counted, failed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let round = Arc::new(round);
    let loops: Vec<_> = clients
        .into_iter()
        .map(|client| {
            let (client, round) = (Arc::new(client), round.clone());
            let (counted, failed) = (counted.clone(), failed.clone());
            tokio::spawn(async move {
                while Instant::now() < until {
                    match round(client.clone()).await {
                        Some(n) => counted.fetch_add(n, Ordering::Relaxed),
                        None => failed.fetch_add(1, Ordering::Relaxed),
                    };
                }
            })
        })
        .collect();
    for each in loops {
        let _ = each.await;
    }
    (
        counted.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
    )
}

/// The processes whose CPU a window reads, by role.
struct Roles {
    nginx: u32,
    replicas: Vec<u32>,
    postgres: u32,
}

/// CPU seconds so far of this process alone (its children are the
/// others), nginx, each replica, PostgreSQL, and the whole machine.
fn cpu_split(roles: &Roles) -> Vec<f64> {
    let load = proc_stats()
        .into_iter()
        .find(|(pid, _, _)| *pid == std::process::id())
        .map_or(0.0, |(_, _, ticks)| ticks as f64 / 100.0);
    let mut split = vec![load, tree_cpu(roles.nginx)];
    split.extend(roles.replicas.iter().map(|pid| tree_cpu(*pid)));
    split.push(tree_cpu(roles.postgres));
    split.push(machine_cpu());
    split
}

/// The CPU seconds every core of the machine has been busy (`/proc/stat`:
/// all but idle and iowait, in clock ticks of 1/100 s).
fn machine_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(cpu) = stat.lines().next() else {
        return 0.0;
    };
    let ticks: Vec<u64> = cpu
        .split_whitespace()
        .skip(1)
        .filter_map(|n| n.parse().ok())
        .collect();
    let busy: u64 = ticks
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4 && *i < 8)
        .map(|(_, t)| t)
        .sum();
    busy as f64 / 100.0
}

/// Every process now: its pid, its parent's, its CPU in clock ticks.
fn proc_stats() -> Vec<(u32, u32, u64)> {
    let mut procs = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|at| &stat[at + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split(' ').collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        if let (Some(ppid), Some(utime), Some(stime)) = (number(1), number(11), number(12)) {
            procs.push((pid, ppid as u32, utime + stime));
        }
    }
    procs
}

/// The CPU seconds of `root` and its descendants alive now (from
/// `/proc/PID/stat`: utime + stime, clock ticks of 1/100 s).
fn tree_cpu(root: u32) -> f64 {
    let procs = proc_stats();
    let mut tree = vec![root];
    let mut ticks = 0;
    while let Some(pid) = tree.pop() {
        for (child, parent, cpu) in &procs {
            if *child == pid {
                ticks += cpu;
            }
            if *parent == pid {
                tree.push(*child);
            }
        }
    }
    ticks as f64 / 100.0
}

/// The PostgreSQL server of `db`: the process whose command line names
/// its directory.
fn postmaster(db: &Postgres) -> u32 {
    let dir = db.socket_dir().to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            let program = cmdline.split('\0').next().unwrap_or_default();
            program.ends_with("/postgres") && cmdline.contains(&dir)
        })
        .expect("the PostgreSQL server's process")
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let options = options().unwrap_or_else(|err| {
        eprintln!("{err}");
        std::process::exit(2)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let db = Postgres::start().unwrap();
    let store = db.url();
    let replicas: Vec<Replica> = ["a", "b"]
        .iter()
        .map(|name| Replica::start(&options.agent, name, &store))
        .collect();
    let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
    let mut one = Nginx::proxy([addrs[0]]).start().unwrap();
    let mut two = Nginx::proxy(addrs.clone()).start().unwrap();
    let postgres = postmaster(&db);
    println!(
        "# a2a replicas: unary {} clients, cross {} clients, {} s windows after {} s warm-up, {} runs",
        options.conns,
        options.stream_conns,
        options.duration.as_secs(),
        options.warmup.as_secs(),
        options.runs
    );

    let mut unary: [Vec<f64>; 2] = Default::default();
    let mut splits: [Vec<Vec<f64>>; 2] = Default::default();
    for run in 1..=options.runs {
        for (n, nginx) in [(1, &mut one), (2, &mut two)] {
            let roles = Roles {
                nginx: nginx.process().id(),
                replicas: replicas.iter().map(|r| r.process.id()).collect(),
                postgres,
            };
            let url = nginx.url();
            let clients: Vec<_> = (0..options.conns).map(|_| client(&url)).collect();
            let (rounds, failed, split) = runtime.block_on(async {
                let warm = Instant::now() + options.warmup;
                let shared: Vec<_> = clients.into_iter().map(Arc::new).collect();
                let round = |c: Arc<Arc<A2aClient<HttpClient>>>| -> futures_util::future::BoxFuture<'static, Option<u64>> {
                    Box::pin(async move { unary_round(&c).await.then_some(1) })
                };
                drive(shared.clone(), warm, round).await;
                let before = cpu_split(&roles);
                let started = Instant::now();
                let (rounds, failed) = drive(shared, started + options.duration, round).await;
                let secs = started.elapsed().as_secs_f64();
                let after = cpu_split(&roles);
                let split: Vec<f64> = before
                    .iter()
                    .zip(&after)
                    .map(|(b, a)| (a - b) / secs)
                    .collect();
                (rounds as f64 / secs, failed, split)
            });
            let ours: f64 = split[..5].iter().sum();
            println!(
                "run {run}, {n} replica(s): {rounds:.0} rounds/s ({failed} failed); CPU cores used: \
                 load {:.2}, nginx {:.2}, a {:.2}, b {:.2}, postgres {:.2}; others on the host {:.2}",
                split[0],
                split[1],
                split[2],
                split[3],
                split[4],
                split[5] - ours
            );
            unary[n - 1].push(rounds);
            splits[n - 1].push(split);
        }
    }

    let mut cross = Vec::new();
    for run in 1..=options.runs {
        let base = |addr: SocketAddr| format!("http://{addr}");
        let pairs: Vec<_> = (0..options.stream_conns)
            .map(|_| (client(&base(addrs[0])), client(&base(addrs[1]))))
            .collect();
        let (events, failed, secs) = runtime.block_on(async {
            let round = |pair: Arc<(A2aClient<HttpClient>, A2aClient<HttpClient>)>| -> futures_util::future::BoxFuture<'static, Option<u64>> {
                Box::pin(async move { cross_round(&pair.0, &pair.1).await })
            };
            let started = Instant::now();
            let (events, failed) = drive(pairs, started + options.duration, round).await;
            (events, failed, started.elapsed().as_secs_f64())
        });
        let rate = events as f64 / secs;
        println!("run {run}, cross: {rate:.0} events/s through b ({failed} rounds failed)");
        cross.push(rate);
    }

    let (u1, u2) = (median(unary[0].clone()), median(unary[1].clone()));
    println!();
    println!("| case | median | runs |");
    println!("|---|---|---|");
    println!(
        "| unary, 1 replica | {u1:.0} rounds/s | {:?} |",
        round_all(&unary[0])
    );
    println!(
        "| unary, 2 replicas | {u2:.0} rounds/s | {:?} |",
        round_all(&unary[1])
    );
    println!("| 2 / 1 | {:.2} | |", u2 / u1);
    println!(
        "| cross-replica subscription | {:.0} events/s | {:?} |",
        median(cross.clone()),
        round_all(&cross)
    );
    for (n, split) in splits.iter().enumerate() {
        let roles = ["load", "nginx", "a", "b", "postgres", "whole host"];
        let medians: Vec<String> = (0..roles.len())
            .map(|i| {
                let each = split.iter().map(|s| s[i]).collect();
                format!("{} {:.2}", roles[i], median(each))
            })
            .collect();
        println!("CPU cores, {} replica(s): {}", n + 1, medians.join(", "));
    }
}

fn round_all(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.round() as u64).collect()
}
