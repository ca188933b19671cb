//! Idle and held connections over the connection limit: a new client is
//! still served, fast, and memory stays bounded.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;

use crate::client::{Failure, HOME, Transport, fresh_call};
use crate::flood::{Then, flood};
use crate::support::faults::{self, Probe};
use crate::support::rss::Rss;
use crate::{MEMORY_BOUND, one_at_a_time, probe_time};

/// How often the normal client opens a connection and calls.
const EVERY: Duration = Duration::from_millis(200);

/// Long enough for a connection to be idle enough to give up its slot
/// (`Limits::idle_timeout_at_capacity`, 1 s by default), plus a sweep.
const SETTLE: Duration = Duration::from_millis(1500);

/// What the normal client saw.
struct Probed {
    latencies: Vec<Duration>,
    failures: Vec<Failure>,
}

impl Probed {
    fn total(&self) -> usize {
        self.latencies.len() + self.failures.len()
    }

    fn p99(&mut self) -> Duration {
        self.latencies.sort();
        let at = (self.latencies.len() * 99).div_ceil(100).saturating_sub(1);
        self.latencies.get(at).copied().unwrap_or_default()
    }

    /// At least 99 % served, with a p99 under a second.
    fn check(mut self, attack: &str) {
        let (total, failed) = (self.total(), self.failures.len());
        let p99 = self.p99();
        eprintln!(
            "{attack}: {} of {total} served, p99 {p99:?}",
            total - failed
        );
        assert!(
            failed * 100 <= total,
            "{attack}: {failed} of {total} failed: {:?}",
            &self.failures[..failed.min(5)]
        );
        assert!(p99 < Duration::from_secs(1), "{attack}: p99 {p99:?}");
    }
}

/// A normal client: a fresh connection every 200 ms and one call on it.
async fn probe(transport: Transport, addr: SocketAddr) -> Probed {
    let mut probed = Probed {
        latencies: Vec::new(),
        failures: Vec::new(),
    };
    let end = Instant::now() + probe_time();
    let mut every = tokio::time::interval(EVERY);
    while Instant::now() < end {
        every.tick().await;
        let began = Instant::now();
        match fresh_call(transport, addr, HOME).await {
            Ok(_) => probed.latencies.push(began.elapsed()),
            Err(failure) => probed.failures.push(failure),
        }
    }
    probed
}

fn check_memory(attack: &str, rss: Rss, start: u64) {
    let growth = rss.finish().saturating_sub(start);
    eprintln!(
        "{attack}: RSS grew {:.1} MiB at its peak",
        growth as f64 / (1 << 20) as f64
    );
    assert!(growth < MEMORY_BOUND, "{attack}: RSS grew {growth} bytes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_websockets_leave_room_for_http_clients() {
    let _alone = one_at_a_time().await;
    let (handle, addr) = faults::http(&Probe::default(), Limits::default()).await;
    let start = Rss::now();
    let rss = Rss::sample();

    let mut idle = flood(Transport::Ws, addr, HOME, 2000, Then::Idle).await;
    assert!(
        idle.held.len() >= 1024,
        "{} handshakes went through",
        idle.held.len()
    );
    tokio::time::sleep(SETTLE).await;
    probe(Transport::Http, addr)
        .await
        .check("2,000 idle WebSockets");
    check_memory("2,000 idle WebSockets", rss, start);

    // The oldest idle connection gave up its slot, saying why: 1013.
    let mut close = [0; 4];
    let oldest = &mut idle.held[0];
    tokio::time::timeout(Duration::from_secs(1), oldest.read_exact(&mut close))
        .await
        .expect("closed by the server")
        .unwrap();
    assert_eq!(close[0], 0x88, "a close frame");
    assert_eq!(u16::from_be_bytes([close[2], close[3]]), 1013);
    drop(idle);
    assert!(handle.shutdown().await);
}

/// Holds `count` connections over `transport`, each after one call, and
/// probes the same transport with a normal client meanwhile.
async fn held(transport: Transport, count: usize) {
    let _alone = one_at_a_time().await;
    let probe_server = Probe::default();
    let (handle, addr) = match transport {
        Transport::Http | Transport::Ws => faults::http(&probe_server, Limits::default()).await,
        Transport::Tcp => faults::tcp(&probe_server, Limits::default(), Framing::Lines).await,
    };
    let attack = format!("{count} held {transport:?} connections");
    let start = Rss::now();
    let rss = Rss::sample();

    let held = flood(transport, addr, HOME, count, Then::OneCall).await;
    eprintln!(
        "{attack}: {} held, {} refused",
        held.held.len(),
        held.refused
    );
    assert!(
        held.held.len() >= count.min(1024),
        "{attack}: {} held",
        held.held.len()
    );
    tokio::time::sleep(SETTLE).await;
    probe(transport, addr).await.check(&attack);
    check_memory(&attack, rss, start);
    drop(held);
    assert!(handle.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_http_connections_leave_room() {
    // The larger first: the smaller one's growth is then measured over
    // pages the allocator kept, which can only flatter it, not this one.
    held(Transport::Http, 5000).await;
    held(Transport::Http, 1024).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_websockets_leave_room() {
    // The larger first: the smaller one's growth is then measured over
    // pages the allocator kept, which can only flatter it, not this one.
    held(Transport::Ws, 5000).await;
    held(Transport::Ws, 1024).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_tcp_connections_leave_room() {
    // The larger first: the smaller one's growth is then measured over
    // pages the allocator kept, which can only flatter it, not this one.
    held(Transport::Tcp, 5000).await;
    held(Transport::Tcp, 1024).await;
}
