//! The A2A task stores' cost per operation (issue 31): our in-memory,
//! SQLite and PostgreSQL stores against the Python SDK's own task stores
//! (`InMemoryTaskStore`, and `DatabaseTaskStore` on SQLite through
//! aiosqlite and on PostgreSQL through asyncpg), doing the same work in one
//! run, on the same throwaway PostgreSQL cluster.
//!
//! The work, per task, as an agent's turn makes it: the task created with
//! its first message, a working status, eight 64-byte artifact chunks (the
//! first new, the rest appended), the completed status, then one read of
//! the whole task: 11 writes and 1 read. `--workers` tasks are worked on at
//! once, for `--duration` seconds after a warm-up of one second; each store
//! runs `--runs` times, ours and the SDK's taking turns. Reported: tasks
//! per second, writes per second, and writes per CPU-second of the process
//! doing them (the database server's CPU is not counted, for either side).
//!
//! ```text
//! a2a_store_bench [--duration 5] [--workers 8] [--runs 3]
//! ```
//!
//! Run through `bench/run.sh a2a-stores`.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use typed_rpc_a2a::server::{
    InMemoryTaskStore, SqlStore, TaskEvent, TaskStore, TaskView, new_id, now,
};
use typed_rpc_a2a::types::{
    Artifact, Message, Part, Role, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::postgres::Postgres;
use typed_rpc_test_support::scratch::TempDir;

/// Writes per task: its creation, a status, eight chunks, the last status.
const WRITES_PER_TASK: u64 = 11;
const CHUNKS: usize = 8;
const CHUNK_BYTES: usize = 64;

struct Options {
    duration: Duration,
    workers: usize,
    runs: usize,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        duration: Duration::from_secs(5),
        workers: 8,
        runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        let number = |v: &str| v.parse::<u64>().map_err(|err| format!("{arg}: {err}"));
        match arg.as_str() {
            "--duration" => options.duration = Duration::from_secs(number(&value)?),
            "--workers" => options.workers = number(&value)? as usize,
            "--runs" => options.runs = number(&value)? as usize,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// What one run of one store measured.
#[derive(Clone, Copy, Debug)]
struct Measured {
    tasks_per_sec: f64,
    writes_per_sec: f64,
    writes_per_cpu_sec: f64,
}

/// The CPU time of this process so far: every thread's, from schedstat.
fn cpu_time() -> Duration {
    let mut nanos = 0u64;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            nanos += stat
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(nanos)
}

fn status(task: &Task, state: TaskState) -> TaskEvent {
    TaskEvent::Status(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: Some(now()),
        },
        metadata: None,
    })
}

fn chunk(task: &Task, index: usize) -> TaskEvent {
    TaskEvent::Artifact(TaskArtifactUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        artifact: Artifact {
            artifact_id: "result".into(),
            name: Some("result".into()),
            description: None,
            parts: vec![Part::text("x".repeat(CHUNK_BYTES))],
            metadata: None,
            extensions: Vec::new(),
        },
        append: index > 0,
        last_chunk: index + 1 == CHUNKS,
        metadata: None,
    })
}

/// One task's work on `store`.
async fn one_task(store: &impl TaskStore) {
    let task = Task {
        id: new_id(),
        context_id: new_id(),
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: Some(now()),
        },
        artifacts: None,
        history: Some(vec![Message::text(
            Role::User,
            new_id(),
            "upper a few words",
        )]),
        metadata: None,
    };
    store.create(&task, "").await.unwrap();
    store
        .append(&task.id, &status(&task, TaskState::Working))
        .await
        .unwrap();
    for index in 0..CHUNKS {
        store.append(&task.id, &chunk(&task, index)).await.unwrap();
    }
    store
        .append(&task.id, &status(&task, TaskState::Completed))
        .await
        .unwrap();
    let read = store.load(&task.id, "", TaskView::default()).await.unwrap();
    assert!(read.is_some_and(|read| read.task.status.state == TaskState::Completed));
}

/// `workers` tasks at once on `store` for a second, then for `duration`, measured.
async fn measure<S: TaskStore>(store: Arc<S>, workers: usize, duration: Duration) -> Measured {
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (store, measuring, stop, done) =
                (store.clone(), measuring.clone(), stop.clone(), done.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    one_task(&*store).await;
                    if measuring.load(Ordering::Relaxed) {
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    // The in-memory store never waits: let the clock's task run.
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (began, cpu) = (Instant::now(), cpu_time());
    measuring.store(true, Ordering::Relaxed);
    tokio::time::sleep(duration).await;
    measuring.store(false, Ordering::Relaxed);
    let (wall, cpu) = (began.elapsed(), cpu_time() - cpu);
    stop.store(true, Ordering::Relaxed);
    for handle in handles {
        handle.await.unwrap();
    }
    let tasks = done.load(Ordering::Relaxed) as f64;
    let writes = tasks * WRITES_PER_TASK as f64;
    Measured {
        tasks_per_sec: tasks / wall.as_secs_f64(),
        writes_per_sec: writes / wall.as_secs_f64(),
        writes_per_cpu_sec: writes / cpu.as_secs_f64(),
    }
}

/// The Python SDK's store `store` (`memory`, or a SQLAlchemy URL) doing the same work.
fn measure_python(packages: &PythonPackages, store: &str, options: &Options) -> Measured {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../python/a2a_store_bench.py");
    let mut command: Command = packages.python(script);
    command.args([
        store,
        &options.workers.to_string(),
        &options.duration.as_secs().to_string(),
    ]);
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|err| panic!("{err}: {stdout}"));
    let number = |key: &str| report[key].as_f64().unwrap_or(0.0);
    Measured {
        tasks_per_sec: number("tasksPerSec"),
        writes_per_sec: number("writesPerSec"),
        writes_per_cpu_sec: number("writesPerCpuSec"),
    }
}

fn median(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let mid = values[values.len() / 2];
    (mid, values[0], values[values.len() - 1])
}

fn show(name: &str, runs: &[Measured]) -> f64 {
    let (tasks, ..) = median(runs.iter().map(|m| m.tasks_per_sec).collect());
    let (writes, ..) = median(runs.iter().map(|m| m.writes_per_sec).collect());
    let (per_cpu, low, high) = median(runs.iter().map(|m| m.writes_per_cpu_sec).collect());
    println!(
        "| {name} | {tasks:.0} | {writes:.0} | {per_cpu:.0} ({low:.0}-{high:.0}) | {:.1} |",
        1e6 / per_cpu
    );
    per_cpu
}

#[tokio::main]
async fn main() {
    let options = options().unwrap_or_else(|err| {
        eprintln!("{err}\nusage: a2a_store_bench [--duration S] [--workers N] [--runs N]");
        std::process::exit(2);
    });
    let requirements = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../python/a2a_stores_requirements.txt"
    );
    // Beside the release directory: <target>/a2a-stores-python.
    let exe = std::env::current_exe().unwrap();
    let target = exe.parent().and_then(|release| release.parent()).unwrap();
    let packages =
        PythonPackages::install_into(requirements, target.join("a2a-stores-python")).unwrap();
    let db = Postgres::start().unwrap();
    db.psql("CREATE DATABASE ours").unwrap();
    db.psql("CREATE DATABASE sdk").unwrap();
    let base = db
        .url()
        .rsplit_once('/')
        .map(|(base, _)| base.to_owned())
        .unwrap();
    let dir = TempDir::new("a2a-store-bench").unwrap();
    let sqlite = SqlStore::connect(&format!("sqlite:{}", dir.path().join("ours.db").display()))
        .await
        .unwrap();
    let postgres = SqlStore::connect(&format!("{base}/ours")).await.unwrap();
    let memory = InMemoryTaskStore::new();
    let sdk_sqlite = format!(
        "sqlite+aiosqlite:///{}",
        dir.path().join("sdk.db").display()
    );
    let sdk_postgres = format!(
        "{}/sdk",
        base.replace("postgres://", "postgresql+asyncpg://")
    );

    let (memory, sqlite, postgres) = (Arc::new(memory), Arc::new(sqlite), Arc::new(postgres));
    let mut rows: Vec<(&str, Vec<Measured>, Vec<Measured>)> = vec![
        ("in memory", Vec::new(), Vec::new()),
        ("SQLite", Vec::new(), Vec::new()),
        ("PostgreSQL", Vec::new(), Vec::new()),
    ];
    for run in 0..options.runs {
        eprintln!("run {} of {}", run + 1, options.runs);
        let (workers, duration) = (options.workers, options.duration);
        rows[0]
            .1
            .push(measure(memory.clone(), workers, duration).await);
        rows[0]
            .2
            .push(measure_python(&packages, "memory", &options));
        rows[1]
            .1
            .push(measure(sqlite.clone(), workers, duration).await);
        rows[1]
            .2
            .push(measure_python(&packages, &sdk_sqlite, &options));
        rows[2]
            .1
            .push(measure(postgres.clone(), workers, duration).await);
        rows[2]
            .2
            .push(measure_python(&packages, &sdk_postgres, &options));
    }
    println!(
        "\n{} workers, {} s windows, {} runs; medians (min-max)\n",
        options.workers,
        options.duration.as_secs(),
        options.runs
    );
    println!("| store | tasks/s | writes/s | writes per CPU-second | CPU µs per write |");
    println!("|---|---|---|---|---|");
    for (name, ours, sdk) in &rows {
        let ours_per_cpu = show(&format!("typed-rpc-a2a, {name}"), ours);
        let sdk_per_cpu = show(&format!("a2a-sdk, {name}"), sdk);
        let ratios: Vec<f64> = ours
            .iter()
            .zip(sdk)
            .map(|(o, s)| o.writes_per_cpu_sec / s.writes_per_cpu_sec)
            .collect();
        let (ratio, low, high) = median(ratios);
        println!(
            "| ratio, {name} | | | **{ratio:.1}x** ({low:.1}-{high:.1}; {ours_per_cpu:.0} vs {sdk_per_cpu:.0}) | |"
        );
    }
}
