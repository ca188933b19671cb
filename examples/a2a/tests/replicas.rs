//! Two `text-agent` replicas sharing one PostgreSQL store, behind nginx
//! (round robin, `proxy_buffering off`), with the official Python
//! `a2a-sdk` client (`tests/python/replicas_client.py`) talking only to
//! nginx: tasks made through one replica read, listed and canceled through
//! the other; streams and subscriptions whole whichever replica serves
//! them; the database stopped and started again mid-run without losing an
//! acknowledged task; one replica killed (`SIGKILL`) mid-task, its task
//! failed by the survivor's lease sweep and its subscriber served by the
//! survivor, which also delivers the push notifications the dead replica
//! left undelivered to a webhook that held them, in order, with their token.
//!
//! The test provisions what it needs (through `typed-rpc-test-support`):
//! a throwaway PostgreSQL cluster, nginx, the pinned Python packages of
//! `tests/python/requirements.txt`.

#![cfg(feature = "postgres")]

#[path = "common/held_webhook.rs"]
mod held_webhook;
#[path = "common/report.rs"]
mod report;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use typed_rpc_test_support::child::{ChildGuard, Signal};
use typed_rpc_test_support::nginx::Nginx;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::postgres::Postgres;

use held_webhook::{HeldWebhook, Received};
use report::{list, text};

/// How long a process may take to start, a scenario to run.
const PATIENCE: Duration = Duration::from_secs(90);

fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("python")
}

/// One replica: `text-agent --store <db> --replica <name>` on `addr`.
struct Replica {
    process: ChildGuard,
    addr: SocketAddr,
}

impl Replica {
    /// Starts replica `name` on `listen` (`127.0.0.1:0` for a free port),
    /// its card naming `public` when given.
    fn start(name: &str, store: &str, listen: &str, public: Option<&str>) -> Replica {
        let mut command = Command::new(env!("CARGO_BIN_EXE_text-agent"));
        command.args([
            "--listen",
            listen,
            "--store",
            store,
            "--replica",
            name,
            "--push",
        ]);
        if let Some(public) = public {
            command.args(["--public-url", public]);
        }
        command.stderr(Stdio::inherit());
        let (process, base) = ChildGuard::serve(&mut command, "listening on ", PATIENCE).unwrap();
        let addr = base.trim_start_matches("http://").parse().unwrap();
        Replica { process, addr }
    }
}

/// The replicas, nginx in front, and their database.
struct Cluster {
    // Dropped in order: nginx, the replicas, then the database.
    nginx: Nginx,
    replicas: Vec<(String, Replica)>,
    db: Postgres,
}

impl Cluster {
    fn start() -> Cluster {
        let db = Postgres::start().unwrap();
        let store = db.url();
        // Started once to learn their ports, then again with nginx's URL in their cards.
        let probes: Vec<Replica> = ["a", "b"]
            .iter()
            .map(|name| Replica::start(name, &store, "127.0.0.1:0", None))
            .collect();
        let addrs: Vec<SocketAddr> = probes.iter().map(|replica| replica.addr).collect();
        drop(probes);
        let nginx = Nginx::proxy(addrs.clone()).start().unwrap();
        let replicas = ["a", "b"]
            .iter()
            .zip(&addrs)
            .map(|(name, addr)| {
                let listen = addr.to_string();
                let replica = Replica::start(name, &store, &listen, Some(&nginx.url()));
                (name.to_string(), replica)
            })
            .collect();
        Cluster {
            nginx,
            replicas,
            db,
        }
    }

    fn card_url(&self) -> String {
        format!("{}/.well-known/agent-card.json", self.nginx.url())
    }

    /// The name of the replica running the task `task_id`.
    fn runner_of(&self, task_id: &str) -> String {
        let runner = self
            .db
            .psql(&format!(
                "SELECT runner FROM a2a_tasks WHERE id = '{task_id}'"
            ))
            .unwrap();
        runner.split('/').next().unwrap_or_default().to_owned()
    }

    /// Kills replica `name` with `SIGKILL`.
    fn kill(&mut self, name: &str) {
        let (_, replica) = self
            .replicas
            .iter_mut()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no replica {name}"));
        replica.process.signal(Signal::Kill);
        assert!(
            replica.process.wait_within(PATIENCE).is_some(),
            "{name} outlived SIGKILL"
        );
    }

    /// Runs `replicas_client.py <nginx card> <scenario>`, doing what it
    /// asks midway, and returns its report.
    fn run(&mut self, scenario: &str) -> Value {
        self.run_with(scenario, |_| {})
    }

    /// As [`run`](Self::run), calling `killed` with the name of the
    /// replica the scenario has had killed.
    fn run_with(&mut self, scenario: &str, mut killed: impl FnMut(&str)) -> Value {
        let packages =
            PythonPackages::install(python_dir().join("requirements.txt"), "a2a-python").unwrap();
        let mut command = packages.python(python_dir().join("replicas_client.py"));
        command
            .current_dir(python_dir())
            .args([self.card_url().as_str(), scenario])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut client = ChildGuard::spawn(&mut command).unwrap();
        let mut stdin = client.child_mut().stdin.take().unwrap();
        let mut lines = client.stdout_lines().unwrap();
        loop {
            let line = lines
                .next_within(PATIENCE)
                .unwrap_or_else(|| panic!("replicas_client.py {scenario} printed no report"));
            let said: Value = serde_json::from_str(&line)
                .unwrap_or_else(|err| panic!("{err}: replicas_client.py printed {line}"));
            if said.get("scenario").is_some() {
                return said;
            }
            if let Some(task_id) = said["kill"].as_str() {
                let runner = self.runner_of(task_id);
                self.kill(&runner);
                killed(&runner);
            } else if said["restart"] == true {
                // Away for longer than a call waits for a connection (3 s).
                std::thread::sleep(Duration::from_millis(500));
                self.db.stop().unwrap();
                std::thread::sleep(Duration::from_secs(4));
                self.db.restart().unwrap();
            }
            writeln!(stdin, "go").unwrap();
        }
    }
}

/// Starts `slow 100` on the replica at `addr`, its updates pushed to
/// `webhook` with `token`; returns the task's id.
fn start_pushed_task(addr: SocketAddr, webhook: &str, token: &str) -> String {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {
            "message": {
                "messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": "slow 100"}],
            },
            "configuration": {
                "returnImmediately": true,
                "taskPushNotificationConfig": {"url": webhook, "token": token},
            },
        },
    })
    .to_string();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /a2a HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         a2a-version: 1.0\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (_, json) = reply.split_once("\r\n\r\n").unwrap();
    let reply: Value = serde_json::from_str(json).unwrap_or_else(|err| panic!("{err}: {reply}"));
    text(&reply["result"]["task"]["id"]).to_owned()
}

/// A fresh id, unique enough for one test run.
fn uuid() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("push-{nanos}")
}

/// The updates of the task `task_id` the webhook received.
fn updates_of<'r>(received: &'r [Received], task_id: &str) -> Vec<&'r Received> {
    received
        .iter()
        .filter(|r| r.body["task"]["id"] == task_id || r.body["statusUpdate"]["taskId"] == task_id)
        .collect()
}

/// The update ends its task as failed.
fn fails(received: &Received) -> bool {
    received.body["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED"
}

/// The `step N of M` numbers of a stream's status events.
fn steps(events: &[Value]) -> Vec<u32> {
    events.iter().filter_map(|e| step(&e["text"])).collect()
}

/// N, when `text` is `step N of M`.
fn step(text: &Value) -> Option<u32> {
    text.as_str()?
        .strip_prefix("step ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

#[test]
fn two_replicas_behind_nginx_share_tasks_streams_and_survive_their_database_and_a_death() {
    let mut cluster = Cluster::start();

    let across = cluster.run("across");
    let started = list(&across["started"]);
    let ids: Vec<&str> = started.iter().map(|t| text(&t["id"])).collect();
    for read in list(&across["reads"]) {
        assert_eq!(read["id"], ids[0], "{across}");
    }
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(
        list(&across["listed"]).iter().map(text).collect::<Vec<_>>(),
        sorted
    );
    for canceled in list(&across["canceled"]) {
        assert_eq!(canceled["state"], "TASK_STATE_CANCELED", "{across}");
    }
    // Read through both replicas after a step's time: still canceled, no step added.
    let after = list(&across["after"]);
    for pair in after.chunks(2) {
        assert_eq!(
            pair[0], pair[1],
            "both replicas read the same task: {across}"
        );
        assert_eq!(pair[0]["state"], "TASK_STATE_CANCELED", "{across}");
    }
    assert_eq!(
        across["completed"]["state"], "TASK_STATE_COMPLETED",
        "{across}"
    );
    for read in list(&across["completedReads"]) {
        assert_eq!(read["artifacts"][0]["text"], "ACROSS REPLICAS", "{across}");
    }

    let streams = cluster.run("streams");
    for events in list(&streams["streamed"]) {
        let events = list(events);
        assert_eq!(events[0]["kind"], "task", "{streams}");
        assert_eq!(steps(events), [1, 2, 3, 4], "{streams}");
        assert_eq!(
            events.last().unwrap()["state"],
            "TASK_STATE_COMPLETED",
            "{streams}"
        );
    }
    for subscribed in list(&streams["subscribed"]) {
        let events = list(&subscribed["events"]);
        assert_eq!(events[0]["kind"], "task", "{streams}");
        let seen = steps(events);
        // From wherever the subscription started, every later step once, in order.
        let from = seen.first().copied().unwrap_or(7);
        assert_eq!(seen, (from..=6).collect::<Vec<_>>(), "{streams}");
        assert_eq!(
            events.last().unwrap()["state"],
            "TASK_STATE_COMPLETED",
            "{streams}"
        );
    }

    let outage = cluster.run("outage");
    let acknowledged = list(&outage["acknowledged"]);
    assert!(acknowledged.len() >= 40, "{outage}");
    let mut acknowledged_ids: Vec<&str> = acknowledged.iter().map(|t| text(&t["id"])).collect();
    for (answer, read) in acknowledged.iter().zip(list(&outage["reads"])) {
        assert_eq!(answer["state"], "TASK_STATE_COMPLETED", "{outage}");
        assert_eq!(read["id"], answer["id"], "{outage}");
        assert_eq!(read["state"], "TASK_STATE_COMPLETED", "{outage}");
    }
    acknowledged_ids.sort();
    let listed: Vec<&str> = list(&outage["listedIds"]).iter().map(text).collect();
    assert_eq!(
        listed, acknowledged_ids,
        "each acknowledged once, none lost: {outage}"
    );
    for error in list(&outage["errors"]) {
        // The retryable answer of a replica whose database is away.
        assert_eq!(error["code"], -32603, "{outage}");
        // The SDK keeps the ErrorInfo's metadata as the error's data.
        assert_eq!(error["data"]["retryAfterSeconds"], "1", "{outage}");
        let detail = text(&error["data"]["detail"]);
        assert!(detail.starts_with("task store unavailable"), "{outage}");
    }
    eprintln!(
        "outage: {} messages acknowledged in {} s, {} retryable errors while the database was away",
        acknowledged.len(),
        outage["seconds"],
        outage["errorCount"]
    );
    let after = list(&outage["after"]);
    assert_eq!(
        after.last().unwrap()["state"],
        "TASK_STATE_COMPLETED",
        "{outage}"
    );

    // A task on each replica pushing to a webhook that holds what it is
    // sent: whichever replica dies, its updates are left undelivered.
    let hook = HeldWebhook::start();
    let token = "held-token";
    let pushed: Vec<(String, String)> = cluster
        .replicas
        .iter()
        .map(|(name, replica)| {
            let task = start_pushed_task(replica.addr, hook.url(), token);
            (name.clone(), task)
        })
        .collect();
    hook.wait_held(2, PATIENCE);
    let mut dead = String::new();
    let kill = cluster.run_with("kill", |name| {
        dead = name.to_owned();
        hook.release();
    });
    let (_, orphan) = pushed.iter().find(|(name, _)| *name == dead).unwrap();
    let received = hook
        .received_when(PATIENCE, |received| {
            updates_of(received, orphan)
                .last()
                .is_some_and(|r| fails(r))
        })
        .expect("the survivor pushes the dead replica's updates, up to the task's failure");
    let updates = updates_of(&received, orphan);
    assert!(
        updates.iter().all(|r| r.token.as_deref() == Some(token)),
        "every update with its token: {updates:?}"
    );
    assert_eq!(updates[0].body["task"]["id"], **orphan, "{updates:?}");
    let pushed_steps: Vec<u32> = updates[1..]
        .iter()
        .filter_map(|r| step(&r.body["statusUpdate"]["status"]["message"]["parts"][0]["text"]))
        .collect();
    assert!(!pushed_steps.is_empty(), "{updates:?}");
    assert_eq!(
        pushed_steps,
        (1..=pushed_steps.len() as u32).collect::<Vec<_>>(),
        "every step once, in order: {updates:?}"
    );
    assert!(
        updates.iter().filter(|r| fails(r)).count() == 1 && fails(updates.last().unwrap()),
        "the failure last, once: {updates:?}"
    );
    let left = || {
        let sql = format!("SELECT count(*) FROM a2a_push_outbox WHERE task_id = '{orphan}'");
        cluster.db.psql(&sql).unwrap().trim().to_owned()
    };
    let deadline = std::time::Instant::now() + PATIENCE;
    while left() != "0" && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        left(),
        "0",
        "the outbox is emptied as updates are delivered"
    );
    eprintln!(
        "push takeover: {} updates of {dead}'s task delivered by the survivor",
        updates.len()
    );

    assert_eq!(kill["before"]["state"], "TASK_STATE_COMPLETED", "{kill}");
    let seen = list(&kill["seen"]);
    let last_seen = steps(seen).last().copied().unwrap_or(0);
    let resubscribed = list(&kill["resubscribed"]);
    assert_eq!(resubscribed[0]["kind"], "task", "{kill}");
    assert!(
        steps(&resubscribed[1..])
            .iter()
            .all(|step| *step > last_seen),
        "nothing seen before is repeated: {kill}"
    );
    let end = resubscribed.last().unwrap();
    assert_eq!(end["state"], "TASK_STATE_FAILED", "{kill}");
    assert!(text(&end["text"]).contains("stopped"), "{kill}");
    assert_eq!(kill["final"]["state"], "TASK_STATE_FAILED", "{kill}");
    eprintln!(
        "kill: the stream was cut ({}) after step {last_seen}; resubscribed to {} more events",
        kill["cut"],
        resubscribed.len() - 1
    );
}
