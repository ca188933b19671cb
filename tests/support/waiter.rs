//! A service whose handlers wait until they are cancelled, and a probe that
//! tells a test, from the server's side, which handlers started, which
//! were dropped and which cleaned up. Shared by the cancellation tests and
//! the interop test of vscode-jsonrpc's cancellation.
//!
//! Light enough to mount alone (`#[path = "../support/waiter.rs"] mod waiter;`).

// Each test crate uses its own part of this module.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use typed_rpc::{Context, RpcResult, rpc};

/// What the server's handlers did, counted as it happened.
#[derive(Default)]
pub struct Probe {
    started: AtomicU64,
    dropped: AtomicU64,
    cleaned: AtomicU64,
    finished: AtomicU64,
    report: Mutex<Option<serde_json::Value>>,
    changed: Notify,
}

impl Probe {
    /// Handlers of `wait` and `wait_watching` that have started.
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::SeqCst)
    }

    /// Handlers dropped before they returned.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::SeqCst)
    }

    /// Handlers of `wait_watching` that saw their cancellation and cleaned up.
    pub fn cleaned(&self) -> u64 {
        self.cleaned.load(Ordering::SeqCst)
    }

    /// Handlers that returned.
    pub fn finished(&self) -> u64 {
        self.finished.load(Ordering::SeqCst)
    }

    /// What a foreign client sent in its `report` notification, once it has.
    pub async fn report(&self) -> Option<serde_json::Value> {
        self.until(|probe| probe.report.lock().unwrap().is_some())
            .await;
        self.report.lock().unwrap().clone()
    }

    /// Waits (at most 5 s) until `done` holds of the probe; whether it did.
    pub async fn until(&self, done: impl Fn(&Probe) -> bool) -> bool {
        let waiting = async {
            loop {
                // Registered before the check, so that no change between
                // the check and the wait is missed.
                let mut changed = std::pin::pin!(self.changed.notified());
                changed.as_mut().enable();
                if done(self) {
                    return;
                }
                changed.await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .is_ok()
    }

    fn count(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
    }
}

/// Counts a handler's drop unless it returned.
struct DropGuard {
    probe: Arc<Probe>,
    returned: bool,
}

impl DropGuard {
    fn new(probe: &Arc<Probe>) -> Self {
        probe.count(&probe.started);
        DropGuard {
            probe: probe.clone(),
            returned: false,
        }
    }

    fn returned(mut self) {
        self.returned = true;
        self.probe.count(&self.probe.finished);
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if !self.returned {
            self.probe.count(&self.probe.dropped);
        }
    }
}

/// Methods that take as long as they are told, or forever.
#[rpc]
pub trait Waiter {
    /// Waits `ms` milliseconds (forever when absent), then answers `"done"`.
    #[method(name = "wait")]
    async fn wait(&self, ms: Option<u64>) -> RpcResult<String>;

    /// Waits forever, watching its cancellation: once cancelled it cleans
    /// up and answers `"cleaned up"`, a result the server must discard.
    #[method(name = "wait_watching")]
    async fn wait_watching(&self, #[context] cx: &Context) -> RpcResult<String>;

    /// Waits until `count` handlers have started; answers how many have.
    #[method(name = "started")]
    async fn started(&self, count: u64) -> RpcResult<u64>;

    /// Waits until `count` handlers have been dropped; answers how many have.
    #[method(name = "dropped")]
    async fn dropped(&self, count: u64) -> RpcResult<u64>;

    /// Answers at once.
    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;

    /// A notification that takes `ms` milliseconds to run.
    #[notification(name = "slow_note")]
    async fn slow_note(&self, ms: u64);

    /// What a foreign client saw, for the test to check.
    #[notification(name = "report")]
    async fn report(&self, #[params] report: serde_json::Value);
}

/// The [`Waiter`] a test serves, reporting to its probe.
#[derive(Clone, Default)]
pub struct Waits {
    /// What the handlers did.
    pub probe: Arc<Probe>,
}

impl Waiter for Waits {
    async fn wait(&self, ms: Option<u64>) -> RpcResult<String> {
        let guard = DropGuard::new(&self.probe);
        match ms {
            Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
            None => std::future::pending().await,
        }
        guard.returned();
        Ok("done".into())
    }

    async fn wait_watching(&self, cx: &Context) -> RpcResult<String> {
        let guard = DropGuard::new(&self.probe);
        cx.cancelled().await;
        // Cleanup that takes a moment, well within the grace period.
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.probe.count(&self.probe.cleaned);
        guard.returned();
        Ok("cleaned up".into())
    }

    async fn started(&self, count: u64) -> RpcResult<u64> {
        self.probe.until(|probe| probe.started() >= count).await;
        Ok(self.probe.started())
    }

    async fn dropped(&self, count: u64) -> RpcResult<u64> {
        self.probe.until(|probe| probe.dropped() >= count).await;
        Ok(self.probe.dropped())
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".into())
    }

    async fn slow_note(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    async fn report(&self, report: serde_json::Value) {
        *self.probe.report.lock().unwrap() = Some(report);
        self.probe.changed.notify_waiters();
    }
}
