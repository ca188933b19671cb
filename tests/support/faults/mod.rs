//! The service the fault tests load, and the raw peers that load it: a
//! `Faults` server on HTTP (and WebSocket) or TCP, and a connection the
//! server has accepted and answered, for the scenarios of [`backpressure`]
//! and [`vanish`] that each transport's `faults` tests run.

pub mod backpressure;
pub mod vanish;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{Router, RpcResult, rpc};

use super::raw::{Got, KIB, PATIENCE, Peer, Wire, call, connect, ws_handshake};

#[rpc]
pub trait Faults {
    /// `size` bytes of `x`: a reply as big as a test wants (raw JSON, so
    /// that a debug build does not spend its time escaping it). `pad` is
    /// ignored: it makes the request as big as a test wants.
    #[method(name = "blob")]
    async fn blob(&self, size: usize, pad: Option<String>) -> RpcResult<Box<RawValue>>;

    /// Sleeps `millis`, then answers `tag` followed by `pad` dots.
    #[method(name = "nap")]
    async fn nap(&self, millis: u64, tag: String, pad: usize) -> RpcResult<String>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// Never returns.
    #[method(name = "hang")]
    async fn hang(&self) -> RpcResult<i64>;
}

/// What the handlers saw; clones share it.
#[derive(Clone, Default)]
pub struct Probe {
    /// How many times `blob` ran.
    pub blobs: Arc<AtomicUsize>,
    /// The tag of every `nap` that started.
    pub naps: Arc<Mutex<HashSet<String>>>,
    /// How many `hang`s started, and how many were dropped.
    pub hangs: Arc<AtomicUsize>,
    pub hangs_dropped: Arc<AtomicUsize>,
}

/// Counts a drop.
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Probe {
    pub fn blobs(&self) -> usize {
        self.blobs.load(Ordering::SeqCst)
    }

    pub fn naps(&self) -> HashSet<String> {
        self.naps.lock().unwrap().clone()
    }
}

impl Faults for Probe {
    async fn blob(&self, size: usize, _pad: Option<String>) -> RpcResult<Box<RawValue>> {
        self.blobs.fetch_add(1, Ordering::SeqCst);
        Ok(RawValue::from_string(format!("\"{}\"", "x".repeat(size))).unwrap())
    }

    async fn nap(&self, millis: u64, tag: String, pad: usize) -> RpcResult<String> {
        self.naps.lock().unwrap().insert(tag.clone());
        tokio::time::sleep(Duration::from_millis(millis)).await;
        Ok(tag + &".".repeat(pad))
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn hang(&self) -> RpcResult<i64> {
        let _dropped = Dropped(self.hangs_dropped.clone());
        self.hangs.fetch_add(1, Ordering::SeqCst);
        std::future::pending().await
    }
}

/// A write that makes no progress for this long has stalled.
pub const STALL: Duration = Duration::from_millis(300);
pub const MIB: usize = 1024 * KIB;

pub fn server(probe: &Probe, limits: Limits) -> Server {
    Server::new(Router::new(probe.clone().into_service())).limits(limits)
}

/// HTTP and WebSocket on one port.
pub async fn http(probe: &Probe, limits: Limits) -> (ServerHandle, SocketAddr) {
    let handle = server(probe, limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

pub async fn tcp(probe: &Probe, limits: Limits, framing: Framing) -> (ServerHandle, SocketAddr) {
    let handle = server(probe, limits)
        .serve_tcp("127.0.0.1:0", framing)
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

/// The most a TCP send buffer grows to (the third field of `tcp_wmem`).
pub fn max_send_buffer() -> usize {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_wmem")
        .ok()
        .and_then(|text| text.split_whitespace().nth(2)?.parse().ok())
        .unwrap_or(4 * MIB)
}

/// A connection the server has accepted and answered once: retried while
/// the server refuses it (its connection slots are taken), for up to
/// `PATIENCE`.
pub async fn accepted(addr: SocketAddr, wire: Wire) -> (Peer<OwnedReadHalf>, OwnedWriteHalf) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let (mut io, _) = connect(addr, None).await;
        if wire != Wire::Ws || ws_handshake(&mut io).await.is_ok() {
            let (read, mut write) = io.into_split();
            let mut peer = Peer::new(read, wire);
            let asked = write
                .write_all(&wire.encode(&call(0, "add", json!([1, 2]))))
                .await;
            let answer = match asked {
                Ok(()) => peer.next().await,
                Err(_) => None,
            };
            let answered = match answer {
                Some(Got::Json(reply)) => reply["result"] == 3,
                Some(Got::Http(response)) => {
                    response.status == 200 && response.json()["result"] == 3
                }
                _ => false,
            };
            if answered {
                return (peer, write);
            }
        }
        assert!(
            Instant::now() < deadline,
            "a connection slot was never freed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One call on a connection that is already open.
pub async fn check(peer: &mut Peer<OwnedReadHalf>, write: &mut OwnedWriteHalf, a: i64) {
    let message = peer.wire.encode(&call(7, "add", json!([a, 1])));
    write.write_all(&message).await.unwrap();
    let reply = peer.json().await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "result": a + 1, "id": 7}));
}
