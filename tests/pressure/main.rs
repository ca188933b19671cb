//! Attacks on the connection limit (issue 18): idle and held connections
//! must not lock real clients out. Each attack fills a server with
//! connections that do nothing, on loopback; meanwhile a normal client
//! opens a fresh connection every 200 ms and must be served, a client with
//! a slow call in flight must get its reply, and the process's memory must
//! stay within 64 MiB of where it started.
//!
//! The normal client probes for `PRESSURE_SECS` seconds under each attack
//! (default 10; the full run is `PRESSURE_SECS=60`). The attacks
//! run one at a time: they share the process's file descriptors and memory.

#[path = "../support/mod.rs"]
mod support;

mod attacks;
mod client;
mod flood;
mod guarantees;

use std::time::Duration;

use tokio::sync::{Mutex, MutexGuard};

/// Held by each test for its whole run (across its awaits, hence tokio's;
/// it works across the tests' runtimes).
static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

async fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().await
}

/// How long the normal client probes under each attack.
fn probe_time() -> Duration {
    let secs = std::env::var("PRESSURE_SECS")
        .ok()
        .and_then(|secs| secs.parse().ok())
        .unwrap_or(10);
    Duration::from_secs(secs)
}

/// The most the process's resident memory may grow under one attack.
const MEMORY_BOUND: u64 = 64 * 1024 * 1024;
