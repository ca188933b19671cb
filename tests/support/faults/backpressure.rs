//! Backpressure: a client that never reads its replies is no longer read,
//! and loses nothing; or, with a write timeout, is cut off.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;

use super::{MIB, Probe, STALL, accepted, check, http, max_send_buffer, tcp};
use crate::support::raw::{KIB, PATIENCE, Peer, Wire, call, connect, ws_handshake};

pub const IN_FLIGHT: usize = 4;

/// Writes messages until the peer stops taking them: until a write makes no
/// progress for `STALL`. `message(n)` is the `n`th message. Fails the test
/// when `cap` bytes went in without a stall.
pub async fn pump<W: AsyncWrite + Unpin>(
    io: &mut W,
    wire: Wire,
    mut message: impl FnMut(u64) -> String,
    cap: usize,
) -> Pumped {
    let (mut whole, mut bytes, mut next) = (0, 0, 0);
    // Messages are written 16 KiB at a time; `ends` says where each ends.
    let (mut batch, mut ends) = (Vec::new(), VecDeque::new());
    let (mut start, mut at) = (0, 0);
    loop {
        if at == batch.len() {
            (batch, ends, start, at) = (Vec::new(), VecDeque::new(), 0, 0);
            while batch.len() < 16 * KIB {
                batch.extend_from_slice(&wire.encode(&message(next)));
                next += 1;
                ends.push_back(batch.len());
            }
        }
        // `write` is cancel-safe: on a timeout, nothing was written.
        match tokio::time::timeout(STALL, io.write(&batch[at..])).await {
            Ok(Ok(n)) => {
                assert!(n > 0, "the server closed the connection");
                at += n;
                bytes += n;
                while let Some(&end) = ends.front().filter(|&&end| end <= at) {
                    ends.pop_front();
                    start = end;
                    whole += 1;
                }
            }
            Ok(Err(err)) => panic!("a write failed: {err}"),
            Err(_) => {
                let rest = if at > start {
                    batch[at..ends[0]].to_vec()
                } else {
                    Vec::new()
                };
                return Pumped { whole, rest, bytes };
            }
        }
        assert!(
            bytes < cap,
            "the server never stopped reading: {bytes} bytes went in"
        );
    }
}

pub struct Pumped {
    /// How many messages went out whole.
    whole: u64,
    /// The rest of the one cut short, if any.
    rest: Vec<u8>,
    bytes: usize,
}

/// How a client that never reads loads the server.
#[derive(Clone, Copy)]
pub struct Load {
    /// Its first `bigs` requests ask for `big` bytes each: more than the
    /// transport holds between the two ends, so the server's writer is soon
    /// stuck.
    pub big: usize,
    pub bigs: u64,
    /// Padding of the other requests (which ask for 16 bytes): the bigger
    /// they are, the fewer fill the kernel's buffers.
    pub pad: usize,
    /// Whole replies the kernel and the transport may hold besides the one
    /// being written.
    pub allowance: usize,
}

impl Load {
    fn reply_size(self, id: u64) -> usize {
        if id < self.bigs { self.big } else { 16 }
    }

    fn request(self, id: u64) -> String {
        match id < self.bigs {
            true => call(id, "blob", json!([self.big])),
            false => call(id, "blob", json!([16, ".".repeat(self.pad)])),
        }
    }
}

/// A client sends requests on `stuck` and reads nothing: the server must
/// stop reading it (its writes stall) with a bounded number of requests run:
/// at most `2 * IN_FLIGHT` (running, and replies queued), the one being
/// written, and what the kernel holds (`load.allowance`). `other` shows
/// another client served meanwhile. Then the client reads again, and gets a
/// reply to every request it sent.
pub async fn never_reads<S>(
    mut stuck: S,
    wire: Wire,
    probe: &Probe,
    load: Load,
    other: impl Future<Output = ()>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let pumped = pump(&mut stuck, wire, |id| load.request(id), 256 * MIB).await;
    let ran = probe.blobs();
    tokio::time::sleep(STALL).await;
    assert_eq!(probe.blobs(), ran, "the server went on running requests");
    let bound = 2 * IN_FLIGHT + 1 + load.allowance;
    let sent = pumped.whole + u64::from(!pumped.rest.is_empty());
    eprintln!(
        "{wire:?}: {sent} requests ({} KiB) sent before the writes stalled; {ran} run (bound {bound})",
        pumped.bytes / KIB
    );
    assert!(ran <= bound, "{ran} requests run, over {bound}");
    assert!((ran as u64) < load.bigs, "the writer was never stuck");
    assert!(sent > 2 * ran as u64, "{sent} sent, {ran} run");

    other.await;

    // Reading again: every request is answered, the one cut short too.
    let (read, mut write) = tokio::io::split(stuck);
    let rest = pumped.rest;
    let writing = tokio::spawn(async move {
        write.write_all(&rest).await.unwrap();
        write
    });
    let mut peer = Peer::new(read, wire);
    let mut answered = HashSet::new();
    while (answered.len() as u64) < sent {
        let reply = peer.json().await;
        let id = reply["id"].as_u64().unwrap();
        assert!(id < sent && answered.insert(id), "{id} answered twice");
        assert_eq!(reply["result"].as_str().unwrap().len(), load.reply_size(id));
    }
    drop(writing.await.unwrap());
}

pub fn backpressure_limits() -> Limits {
    Limits::default().max_in_flight(IN_FLIGHT)
}

/// A client that reads none of its replies holds its connection only until
/// one write has waited `write_timeout`: then it is disconnected, and its
/// connection slot (the only one) serves another client. It asks for
/// replies of a mebibyte each, more in all than the kernel's buffers hold,
/// or (`one_reply`) for one reply as large as all of them.
pub async fn a_client_that_never_reads_is_cut_off_at_the_write_timeout(
    wire: Wire,
    one_reply: bool,
) {
    const WRITE_TIMEOUT: Duration = Duration::from_millis(300);
    let probe = Probe::default();
    let limits = Limits::default()
        .max_connections(1)
        .write_timeout(WRITE_TIMEOUT);
    let (handle, addr) = match wire {
        Wire::Ws => http(&probe, limits).await,
        _ => tcp(&probe, limits, Framing::Lines).await,
    };
    let (mut stuck, _) = connect(addr, Some(64 * KIB as u32)).await;
    if wire == Wire::Ws {
        ws_handshake(&mut stuck).await.unwrap();
    }
    let mebibytes = max_send_buffer() / MIB + 4;
    let (replies, size) = match one_reply {
        true => (1, mebibytes * MIB),
        false => (mebibytes as u64, MIB),
    };
    for id in 0..replies {
        let request = wire.encode(&call(id, "blob", json!([size])));
        stuck.write_all(&request).await.unwrap();
    }
    let started = Instant::now();
    // `accepted` retries while the only slot is taken.
    let (mut peer, mut write) = accepted(addr, wire).await;
    assert!(started.elapsed() >= WRITE_TIMEOUT, "cut off too early");
    check(&mut peer, &mut write, 1).await;

    // The stuck client reads what reached it, then finds the connection closed.
    let drained = tokio::time::timeout(PATIENCE, async {
        let mut buf = vec![0; 64 * KIB];
        while let Ok(1..) = stuck.read(&mut buf).await {}
    });
    assert!(drained.await.is_ok(), "the stuck connection stayed open");
    drop((peer, write));
    assert!(handle.shutdown().await);
}
