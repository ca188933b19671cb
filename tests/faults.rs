//! Faults, end to end on loopback: peers that never read their replies
//! (backpressure), that vanish in the middle of a request or of a response,
//! that trickle their bytes, and a graceful shutdown while every transport is
//! busy. The peers are written by hand over raw sockets, and every byte the
//! server sends them is parsed: a reply cut off, or owed and never sent,
//! fails the test.
//!
//! `flood` is ignored: it streams 1 GiB at the server on each transport and
//! reports the process's memory. Run it by hand (SECURITY.md says how).

#[path = "support/mod.rs"]
mod support;

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::raw::{
    Got, KIB, OP_CLOSE, OP_CONTINUATION, OP_TEXT, PATIENCE, Peer, Wire, call, connect, post,
    ws_frame, ws_handshake, ws_header,
};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Semaphore;
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{Router, RpcResult, rpc};

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
struct Probe {
    /// How many times `blob` ran.
    blobs: Arc<AtomicUsize>,
    /// The tag of every `nap` that started.
    naps: Arc<Mutex<HashSet<String>>>,
    /// How many `hang`s started, and how many were dropped.
    hangs: Arc<AtomicUsize>,
    hangs_dropped: Arc<AtomicUsize>,
}

/// Counts a drop.
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Probe {
    fn blobs(&self) -> usize {
        self.blobs.load(Ordering::SeqCst)
    }

    fn naps(&self) -> HashSet<String> {
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
const STALL: Duration = Duration::from_millis(300);
const MIB: usize = 1024 * KIB;

fn server(probe: &Probe, limits: Limits) -> Server {
    Server::new(Router::new(probe.clone().into_service())).limits(limits)
}

/// HTTP and WebSocket on one port.
async fn http(probe: &Probe, limits: Limits) -> (ServerHandle, SocketAddr) {
    let handle = server(probe, limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

async fn tcp(probe: &Probe, limits: Limits, framing: Framing) -> (ServerHandle, SocketAddr) {
    let handle = server(probe, limits)
        .serve_tcp("127.0.0.1:0", framing)
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

/// The most a TCP send buffer grows to (the third field of `tcp_wmem`).
fn max_send_buffer() -> usize {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_wmem")
        .ok()
        .and_then(|text| text.split_whitespace().nth(2)?.parse().ok())
        .unwrap_or(4 * MIB)
}

// ---------------------------------------------------------------------------
/// A connection the server has accepted and answered once: retried while
/// the server refuses it (its connection slots are taken), for up to
/// `PATIENCE`.
async fn accepted(addr: SocketAddr, wire: Wire) -> (Peer<OwnedReadHalf>, OwnedWriteHalf) {
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
async fn check(peer: &mut Peer<OwnedReadHalf>, write: &mut OwnedWriteHalf, a: i64) {
    let message = peer.wire.encode(&call(7, "add", json!([a, 1])));
    write.write_all(&message).await.unwrap();
    let reply = peer.json().await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "result": a + 1, "id": 7}));
}

// ---------------------------------------------------------------------------
// Backpressure: a client that never reads its replies.

const IN_FLIGHT: usize = 4;

/// Writes messages until the peer stops taking them: until a write makes no
/// progress for `STALL`. `message(n)` is the `n`th message. Fails the test
/// when `cap` bytes went in without a stall.
async fn pump<W: AsyncWrite + Unpin>(
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

struct Pumped {
    /// How many messages went out whole.
    whole: u64,
    /// The rest of the one cut short, if any.
    rest: Vec<u8>,
    bytes: usize,
}

/// How a client that never reads loads the server.
#[derive(Clone, Copy)]
struct Load {
    /// Its first `bigs` requests ask for `big` bytes each: more than the
    /// transport holds between the two ends, so the server's writer is soon
    /// stuck.
    big: usize,
    bigs: u64,
    /// Padding of the other requests (which ask for 16 bytes): the bigger
    /// they are, the fewer fill the kernel's buffers.
    pad: usize,
    /// Whole replies the kernel and the transport may hold besides the one
    /// being written.
    allowance: usize,
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
async fn never_reads<S>(
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

fn backpressure_limits() -> Limits {
    Limits::default().max_in_flight(IN_FLIGHT)
}

#[tokio::test]
async fn a_tcp_client_that_never_reads_is_no_longer_read_and_loses_nothing() {
    let probe = Probe::default();
    let (handle, addr) = tcp(&probe, backpressure_limits(), Framing::Lines).await;
    let (stuck, granted) = connect(addr, Some(64 * KIB as u32)).await;
    let load = Load {
        big: MIB,
        bigs: 24,
        pad: 512,
        // The server's send buffer and the client's receive buffer.
        allowance: (max_send_buffer() + granted) / MIB + 1,
    };
    let other = async {
        let (mut peer, mut write) = accepted(addr, Wire::Lines).await;
        check(&mut peer, &mut write, 1).await;
    };
    never_reads(stuck, Wire::Lines, &probe, load, other).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_websocket_client_that_never_reads_is_no_longer_read_and_loses_nothing() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, backpressure_limits()).await;
    let (mut stuck, granted) = connect(addr, Some(64 * KIB as u32)).await;
    ws_handshake(&mut stuck).await.unwrap();
    let load = Load {
        big: MIB,
        bigs: 24,
        pad: 512,
        // The kernel's buffers, and tungstenite's write buffer.
        allowance: (max_send_buffer() + granted) / MIB + 2,
    };
    let other = async {
        let (mut peer, mut write) = accepted(addr, Wire::Ws).await;
        check(&mut peer, &mut write, 1).await;
    };
    never_reads(stuck, Wire::Ws, &probe, load, other).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_stream_client_that_never_reads_is_no_longer_read_and_loses_nothing() {
    let probe = Probe::default();
    let server = server(&probe, backpressure_limits());
    let serve = |buffer| {
        let (client, server_end) = tokio::io::duplex(buffer);
        let (read, write) = tokio::io::split(server_end);
        (client, server.serve_stream(read, write, Framing::Lines))
    };
    let (stuck, handle) = serve(4 * KIB);
    let other = async {
        let (client, other_handle) = serve(4 * KIB);
        let (read, mut write) = tokio::io::split(client);
        write
            .write_all(&Wire::Lines.encode(&call(1, "add", json!([2, 2]))))
            .await
            .unwrap();
        assert_eq!(Peer::new(read, Wire::Lines).json().await["result"], 4);
        drop(write);
        assert!(other_handle.shutdown().await);
    };
    // Replies of 64 KiB: more than the pipe (4 KiB) and the server's write
    // buffer (8 KiB) hold, so only the one being written is out of the queue.
    let load = Load {
        big: 64 * KIB,
        bigs: 16,
        pad: 0,
        allowance: 0,
    };
    never_reads(stuck, Wire::Lines, &probe, load, other).await;
    assert!(handle.shutdown().await);
}

/// A client that reads none of its replies holds its connection only until
/// one write has waited `write_timeout`: then it is disconnected, and its
/// connection slot (the only one) serves another client. It asks for
/// replies of a mebibyte each, more in all than the kernel's buffers hold,
/// or (`one_reply`) for one reply as large as all of them.
async fn a_client_that_never_reads_is_cut_off_at_the_write_timeout(wire: Wire, one_reply: bool) {
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

#[tokio::test]
async fn a_tcp_client_that_never_reads_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Lines, false).await;
}

#[tokio::test]
async fn a_websocket_client_that_never_reads_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Ws, false).await;
}

/// On WebSocket the reader sends a reply that finished at once itself; the
/// part the peer does not take still goes out under the write timeout.
#[tokio::test]
async fn a_websocket_client_that_never_reads_one_huge_reply_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Ws, true).await;
}

// ---------------------------------------------------------------------------
// Clients that vanish mid-request or mid-response.

/// What a client does on an accepted connection before it vanishes.
enum Vanish {
    /// Sends these bytes, then closes.
    After(Vec<u8>),
    /// Sends this request, reads a little of the (big) reply, then closes.
    MidReply(Vec<u8>),
}

/// Each fault, on a connection the server accepted and answered once,
/// while a bystander holds the other of two connection slots (so the faults
/// have the room of a server with `max_connections(1)`): the bystander is
/// still served after each, and the next connection is accepted soon, so
/// the slot was freed.
async fn vanish(addr: SocketAddr, wire: Wire, faults: Vec<(&str, Vanish)>) {
    let (mut bystander, mut bystander_write) = accepted(addr, wire).await;
    let mut since = Instant::now();
    for (n, (what, fault)) in faults.into_iter().enumerate() {
        let (mut peer, mut write) = accepted(addr, wire).await;
        assert!(
            since.elapsed() < Duration::from_secs(2),
            "the slot stayed taken"
        );
        match fault {
            Vanish::After(bytes) => write.write_all(&bytes).await.unwrap(),
            Vanish::MidReply(request) => {
                write.write_all(&request).await.unwrap();
                let mut some = [0; 1024];
                let read = tokio::time::timeout(PATIENCE, peer.io.read_exact(&mut some));
                read.await.expect("the reply starts").unwrap();
            }
        }
        drop((peer, write));
        since = Instant::now();
        eprintln!("{wire:?}: {what}");
        check(&mut bystander, &mut bystander_write, n as i64).await;
    }
    // The last fault's slot is free too.
    accepted(addr, wire).await;
    assert!(
        since.elapsed() < Duration::from_secs(2),
        "the slot stayed taken"
    );
}

fn big_reply(wire: Wire) -> Vanish {
    Vanish::MidReply(wire.encode(&call(9, "blob", json!([8 * MIB]))))
}

fn two_slots() -> Limits {
    Limits::default().max_connections(2)
}

#[tokio::test]
async fn http_clients_that_vanish_mid_request_or_mid_response_disturb_no_one() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, two_slots()).await;
    let half_body =
        b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 64\r\n\r\n{\"jsonrpc\":\"2.0\",";
    vanish(
        addr,
        Wire::Http,
        vec![
            (
                "half a request head",
                Vanish::After(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Le".to_vec()),
            ),
            ("half a body", Vanish::After(half_body.to_vec())),
            (
                "half a WebSocket handshake",
                Vanish::After(b"GET / HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConn".to_vec()),
            ),
            ("an 8 MiB reply left unread", big_reply(Wire::Http)),
        ],
    )
    .await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn tcp_clients_that_vanish_mid_request_or_mid_response_disturb_no_one() {
    let probe = Probe::default();
    let (handle, addr) = tcp(&probe, two_slots(), Framing::Lines).await;
    vanish(
        addr,
        Wire::Lines,
        vec![
            (
                "half a line",
                Vanish::After(br#"{"jsonrpc":"2.0","method":"add","par"#.to_vec()),
            ),
            ("an 8 MiB reply left unread", big_reply(Wire::Lines)),
        ],
    )
    .await;
    assert!(handle.shutdown().await);

    let (handle, addr) = tcp(&probe, two_slots(), Framing::ContentLength).await;
    // With both slots taken, a third connection is refused in its framing.
    let taken = [
        accepted(addr, Wire::ContentLength).await,
        accepted(addr, Wire::ContentLength).await,
    ];
    let (io, _) = connect(addr, None).await;
    let mut refused = Peer::new(io, Wire::ContentLength);
    let refusal = refused.json().await;
    assert_eq!(refusal["error"]["code"], -32000, "{refusal}");
    assert!(refused.next().await.is_none(), "then closed");
    drop(taken);
    vanish(
        addr,
        Wire::ContentLength,
        vec![
            ("half a header", Vanish::After(b"Content-Len".to_vec())),
            (
                "half a body",
                Vanish::After(b"Content-Length: 64\r\n\r\n{\"jsonrpc\":".to_vec()),
            ),
            ("an 8 MiB reply left unread", big_reply(Wire::ContentLength)),
        ],
    )
    .await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn websocket_clients_that_vanish_mid_request_or_mid_response_disturb_no_one() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, two_slots()).await;
    let message = call(1, "add", json!([1, 1]));
    let mut half_frame = ws_header(OP_TEXT, true, message.len());
    half_frame.extend_from_slice(&message.as_bytes()[..10]);
    let first_fragment = ws_frame(OP_TEXT, false, &message.as_bytes()[..10]);
    vanish(
        addr,
        Wire::Ws,
        vec![
            ("half a frame header", Vanish::After(vec![0x81, 0xfe, 0x01])),
            ("half a frame", Vanish::After(half_frame)),
            (
                "the first fragment of a message",
                Vanish::After(first_fragment),
            ),
            ("an 8 MiB reply left unread", big_reply(Wire::Ws)),
        ],
    )
    .await;
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// Slow HTTP peers.

const CUTOFF: Duration = Duration::from_millis(400);
const GAP: Duration = Duration::from_millis(25);

fn slow_limits() -> Limits {
    Limits::default()
        .header_timeout(CUTOFF)
        .body_timeout(CUTOFF)
}

/// Sends `bytes` one at a time, `GAP` apart, until the server ends the
/// connection. Returns how many went out, how long the server took to end
/// the connection, and what it sent meanwhile.
async fn trickle(io: TcpStream, bytes: &[u8]) -> (usize, Duration, Vec<u8>) {
    let started = Instant::now();
    let (mut read, mut write) = io.into_split();
    let reading = tokio::spawn(async move {
        let mut received = Vec::new();
        let _ = read.read_to_end(&mut received).await;
        (started.elapsed(), received)
    });
    let mut sent = 0;
    for byte in bytes {
        if reading.is_finished() || write.write_all(&[*byte]).await.is_err() {
            break;
        }
        sent += 1;
        tokio::time::sleep(GAP).await;
    }
    let (after, received) = tokio::time::timeout(PATIENCE, reading)
        .await
        .expect("the connection was ended")
        .unwrap();
    (sent, after, received)
}

fn assert_cut_off(what: &str, after: Duration, sent: usize, of: usize) {
    eprintln!("{what}: cut off after {after:?}, {sent} of {of} bytes sent");
    assert!(sent < of, "{what}: the whole request went through");
    assert!(
        after >= CUTOFF - Duration::from_millis(50) && after < CUTOFF + Duration::from_secs(2),
        "{what}: cut off after {after:?}"
    );
}

#[tokio::test]
async fn slow_http_heads_are_cut_off_on_fresh_and_kept_alive_connections() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, slow_limits()).await;
    let request = Wire::Http.encode(&call(1, "add", json!([1, 2])));

    let (io, _) = connect(addr, None).await;
    let (sent, after, received) = trickle(io, &request).await;
    assert_cut_off(
        "a head trickling in on a fresh connection",
        after,
        sent,
        request.len(),
    );
    assert!(received.is_empty(), "closed without a response");

    // Kept alive: the first request is answered, the second trickles in.
    let (mut peer, mut write) = accepted(addr, Wire::Http).await;
    check(&mut peer, &mut write, 1).await;
    let io = peer.io.reunite(write).unwrap();
    let (sent, after, received) = trickle(io, &request).await;
    assert_cut_off("a second head trickling in", after, sent, request.len());
    assert!(received.is_empty(), "closed without a response");
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_slow_http_body_gets_408_at_the_body_timeout() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, slow_limits()).await;
    let body = call(1, "add", json!([1, 2]));
    let request = Wire::Http.encode(&body);
    let head_len = request.len() - body.len();

    for kept_alive in [false, true] {
        let mut io = if kept_alive {
            let (mut peer, mut write) = accepted(addr, Wire::Http).await;
            check(&mut peer, &mut write, 1).await;
            peer.io.reunite(write).unwrap()
        } else {
            connect(addr, None).await.0
        };
        io.write_all(&request[..head_len]).await.unwrap();
        let (sent, after, mut received) = trickle(io, body.as_bytes()).await;
        assert_cut_off("a body trickling in", after, sent, body.len());
        let Some(Got::Http(response)) = Wire::Http.decode(&mut received) else {
            panic!("no response: {:?}", String::from_utf8_lossy(&received));
        };
        assert_eq!(response.status, 408, "{response:?}");
        assert!(response.closes(), "{response:?}");
        assert!(received.is_empty(), "nothing after the response");
    }
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn idle_kept_alive_connections_lock_no_one_out_past_the_header_timeout() {
    let probe = Probe::default();
    let limits = slow_limits().max_connections(2);
    let (handle, addr) = http(&probe, limits).await;
    let idle = [
        accepted(addr, Wire::Http).await,
        accepted(addr, Wire::Http).await,
    ];
    let since = Instant::now();
    // Every slot is taken: a third client is refused...
    let (mut third, _) = connect(addr, None).await;
    let mut refusal = Vec::new();
    let _ = third.read_to_end(&mut refusal).await;
    assert!(refusal.starts_with(b"HTTP/1.1 503 "), "{refusal:?}");
    // ...until the idle ones are closed at the header timeout.
    accepted(addr, Wire::Http).await;
    let after = since.elapsed();
    eprintln!("served after {after:?}");
    assert!(after < CUTOFF + Duration::from_secs(2), "{after:?}");
    for (mut peer, _write) in idle {
        assert!(peer.next().await.is_none(), "an idle connection was closed");
    }
    assert!(handle.shutdown().await);
}

// ---------------------------------------------------------------------------
// Graceful shutdown under load.

/// What a client sent, what it got back, and how its connections ended.
#[derive(Debug, Default)]
struct Tally {
    name: String,
    sent: HashSet<String>,
    answered: HashSet<String>,
    resets: usize,
}

/// How long each `nap` sleeps.
const NAP: u64 = 4;

/// Checks a reply to `nap` and returns its tag.
fn nap_reply(reply: &Value, name: &str, pad: usize) -> String {
    let result = reply["result"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: not a result: {reply}"));
    let tag = result.trim_end_matches('.');
    assert_eq!(result.len() - tag.len(), pad, "{name}: {reply}");
    assert_eq!(
        reply["id"].as_u64().map(|id| format!("{name}-{id}")),
        Some(tag.to_owned()),
        "{reply}"
    );
    tag.to_owned()
}

/// An HTTP client: one request at a time on a kept-alive connection, a new
/// connection whenever the server closes one, until it refuses to connect.
async fn http_client(addr: SocketAddr, name: &str) -> Tally {
    let mut tally = Tally {
        name: name.to_owned(),
        ..Tally::default()
    };
    let deadline = Instant::now() + PATIENCE;
    let mut id = 0;
    'connections: while Instant::now() < deadline {
        let Ok(io) = TcpStream::connect(addr).await else {
            break;
        };
        let (read, mut write) = io.into_split();
        let mut peer = Peer::new(read, Wire::Http);
        loop {
            id += 1;
            let tag = format!("{name}-{id}");
            tally.sent.insert(tag.clone());
            let request = post(&call(id, "nap", json!([NAP, tag, 0])));
            if write.write_all(&request).await.is_err() {
                continue 'connections;
            }
            match peer.next().await {
                Some(Got::Http(response)) => {
                    assert_eq!(response.status, 200, "{response:?}");
                    tally.answered.insert(nap_reply(&response.json(), name, 0));
                    if response.closes() {
                        assert!(peer.next().await.is_none(), "closed after `close`");
                        continue 'connections;
                    }
                }
                Some(other) => panic!("{other:?}"),
                None => {
                    tally.resets += usize::from(peer.reset);
                    continue 'connections;
                }
            }
        }
    }
    tally
}

/// A client that keeps `window` requests outstanding on one connection
/// (TCP lines or WebSocket), until the server closes it. `buffer` shrinks
/// its kernel buffers, so that the replies wait in the server's.
async fn pipelined(
    addr: SocketAddr,
    wire: Wire,
    name: &str,
    pad: usize,
    buffer: Option<u32>,
) -> Tally {
    const WINDOW: usize = 16;
    let (mut io, _) = connect(addr, buffer).await;
    if wire == Wire::Ws {
        ws_handshake(&mut io).await.unwrap();
    }
    let (read, write) = io.into_split();
    let write = Arc::new(tokio::sync::Mutex::new(Some(write)));
    let window = Arc::new(Semaphore::new(WINDOW));
    let sent = Arc::new(Mutex::new(HashSet::new()));

    let writing = tokio::spawn({
        let (write, window, sent, name) =
            (write.clone(), window.clone(), sent.clone(), name.to_owned());
        async move {
            for id in 0.. {
                let Ok(permit) = window.acquire().await else {
                    break;
                };
                permit.forget();
                let tag = format!("{name}-{id}");
                let message = wire.encode(&call(id, "nap", json!([NAP, tag, pad])));
                let mut write = write.lock().await;
                // Taken once the server's close frame came: send no more.
                let Some(write) = write.as_mut() else { break };
                sent.lock().unwrap().insert(tag);
                if write.write_all(&message).await.is_err() {
                    break;
                }
            }
        }
    });

    let mut tally = Tally {
        name: name.to_owned(),
        ..Tally::default()
    };
    let mut peer = Peer::new(read, wire);
    loop {
        match peer.next().await {
            Some(Got::Json(reply)) => {
                let tag = nap_reply(&reply, name, pad);
                assert!(tally.answered.insert(tag), "{reply} twice");
                window.add_permits(1);
            }
            Some(Got::Close(code)) => {
                assert_eq!(code, 1001, "{name}: closed for the shutdown");
                // Answer the close frame, and send nothing after it.
                let mut write = write.lock().await.take().unwrap();
                let frame = ws_frame(OP_CLOSE, true, &code.to_be_bytes());
                let _ = write.write_all(&frame).await;
            }
            Some(other) => panic!("{other:?}"),
            None => break,
        }
    }
    // The server closes first: it waits for this end to close, so that no
    // reset throws away replies on their way.
    assert!(!peer.reset, "{name}: the connection was reset");
    window.close();
    writing.await.unwrap();
    tally.sent = std::mem::take(&mut sent.lock().unwrap());
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_under_load_answers_every_request_it_accepted() {
    let probe = Probe::default();
    let limits = Limits::default().shutdown_timeout(Duration::from_secs(5));
    let (http_handle, http_addr) = http(&probe, limits.clone()).await;
    let (tcp_handle, tcp_addr) = tcp(&probe, limits, Framing::Lines).await;

    // Replies of 2 KiB to a client with 8 KiB kernel buffers and 16
    // requests outstanding: at any time, some of its replies wait in the
    // server's send buffer.
    let small = Some(8 * KIB as u32);
    let clients = vec![
        tokio::spawn(async move { http_client(http_addr, "h0").await }),
        tokio::spawn(async move { http_client(http_addr, "h1").await }),
        tokio::spawn(async move { pipelined(http_addr, Wire::Ws, "w0", 0, None).await }),
        tokio::spawn(async move { pipelined(http_addr, Wire::Ws, "w1", 2 * KIB, small).await }),
        tokio::spawn(async move { pipelined(tcp_addr, Wire::Lines, "t0", 0, None).await }),
        tokio::spawn(async move { pipelined(tcp_addr, Wire::Lines, "t1", 2 * KIB, small).await }),
    ];
    tokio::time::sleep(Duration::from_millis(400)).await;

    let started = Instant::now();
    let (http_done, tcp_done) = tokio::join!(http_handle.shutdown(), tcp_handle.shutdown());
    let took = started.elapsed();
    assert!(http_done && tcp_done, "everything finished in time");
    assert!(took < Duration::from_secs(5), "{took:?}");

    let mut tallies = Vec::new();
    for client in clients {
        let tally = tokio::time::timeout(PATIENCE, client)
            .await
            .unwrap()
            .unwrap();
        tallies.push(tally);
    }
    let started_naps = probe.naps();
    let mut answered_total = 0;
    let mut lost = Vec::new();
    for tally in &tallies {
        let accepted: HashSet<_> = started_naps.intersection(&tally.sent).cloned().collect();
        lost.extend(accepted.difference(&tally.answered).cloned());
        eprintln!(
            "{}: {} sent, {} run and answered, {} never read, {} reset",
            tally.name,
            tally.sent.len(),
            tally.answered.len(),
            tally.sent.len() - accepted.len(),
            tally.resets
        );
        assert!(tally.answered.is_subset(&accepted), "{}", tally.name);
        assert!(!tally.answered.is_empty(), "{}: under load", tally.name);
        answered_total += tally.answered.len();
    }
    eprintln!("shutdown took {took:?}");
    assert!(lost.is_empty(), "accepted, never answered: {lost:?}");
    assert_eq!(
        answered_total,
        started_naps.len(),
        "every request run was someone's"
    );
}

// ---------------------------------------------------------------------------
// Flood: 1 GiB at the server on each transport, memory sampled.

const GIB: usize = 1 << 30;

/// The process's resident memory in bytes, sampled every millisecond.
struct Rss {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

fn status_field(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with(name)).unwrap();
    let kib: u64 = line[name.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

impl Rss {
    fn now() -> u64 {
        status_field("VmRSS:")
    }

    fn sample() -> Self {
        // Resets VmHWM, the kernel's own record of the peak.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let peak = Arc::new(AtomicU64::new(Rss::now()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(Rss::now(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        Rss { peak, stop }
    }

    /// The peak: the larger of the samples and the kernel's record.
    fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.peak
            .load(Ordering::Relaxed)
            .max(status_field("VmHWM:"))
    }
}

/// Writes `block` until `total` bytes went out or the server stops the
/// connection; the same block each time, so the client holds no more than
/// one. Returns how many bytes went in.
async fn stream_out(write: &mut OwnedWriteHalf, block: &[u8], total: usize) -> usize {
    let mut sent = 0;
    while sent < total {
        if write.write_all(block).await.is_err() {
            break;
        }
        sent += block.len();
    }
    sent
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "streams up to 1 GiB per transport through loopback; run by hand (see SECURITY.md)"]
async fn flood() {
    let probe = Probe::default();
    let limits = Limits::default();
    // What a refused message may cost: the reader holds up to the limit
    // before it knows the message is over it.
    let allowed = 3 * limits.message_size() as u64;
    let (http_handle, http_addr) = http(&probe, limits.clone()).await;
    let (lines_handle, lines_addr) = tcp(&probe, limits.clone(), Framing::Lines).await;
    let (framed_handle, framed_addr) = tcp(&probe, limits, Framing::ContentLength).await;
    let xs = vec![b'x'; 64 * KIB];
    let mut report = Vec::new();

    let cases: [(&str, SocketAddr, Wire); 4] = [
        ("HTTP: a chunked body of 1 GiB", http_addr, Wire::Http),
        ("TCP lines: a line of 1 GiB", lines_addr, Wire::Lines),
        (
            "TCP Content-Length: 1073741824, then the bytes",
            framed_addr,
            Wire::ContentLength,
        ),
        (
            "WebSocket: 1 GiB in continuation frames",
            http_addr,
            Wire::Ws,
        ),
    ];
    for (what, addr, wire) in cases {
        let start = Rss::now();
        let rss = Rss::sample();
        let began = Instant::now();
        let (mut io, _) = connect(addr, None).await;
        if wire == Wire::Ws {
            ws_handshake(&mut io).await.unwrap();
        }
        let (read, mut write) = io.into_split();
        let mut peer = Peer::new(read, wire);
        let reading = tokio::spawn(async move {
            let first = peer.next().await;
            (first, peer)
        });
        let sent = match wire {
            Wire::Http => {
                write
                    .write_all(
                        b"POST / HTTP/1.1\r\nHost: flood\r\nContent-Type: application/json\r\n\
                          Transfer-Encoding: chunked\r\n\r\n",
                    )
                    .await
                    .unwrap();
                let mut chunk = format!("{:x}\r\n", xs.len()).into_bytes();
                chunk.extend_from_slice(&xs);
                chunk.extend_from_slice(b"\r\n");
                stream_out(&mut write, &chunk, GIB).await
            }
            Wire::Lines => stream_out(&mut write, &xs, GIB).await,
            Wire::ContentLength => {
                let header = format!("Content-Length: {GIB}\r\n\r\n");
                write.write_all(header.as_bytes()).await.unwrap();
                stream_out(&mut write, &xs, GIB).await
            }
            Wire::Ws => {
                write
                    .write_all(&ws_frame(OP_TEXT, false, &xs))
                    .await
                    .unwrap();
                let frame = ws_frame(OP_CONTINUATION, false, &xs);
                xs.len() + stream_out(&mut write, &frame, GIB - xs.len()).await
            }
        };
        // After the flood, a request on the same connection: answered where
        // the transport goes on after a refusal.
        if matches!(wire, Wire::Lines | Wire::ContentLength) {
            let mut after = if wire == Wire::Lines {
                b"\n".to_vec()
            } else {
                Vec::new()
            };
            after.extend_from_slice(&wire.encode(&call(2, "add", json!([2, 2]))));
            write.write_all(&after).await.unwrap();
        }
        let (first, mut peer) = reading.await.unwrap();
        let refusal = match (wire, first) {
            (Wire::Http, Some(Got::Http(response))) => {
                assert_eq!(response.status, 413, "{response:?}");
                assert!(response.closes());
                assert!(peer.next().await.is_none(), "then the connection is closed");
                "413, Connection: close".to_owned()
            }
            (Wire::Lines | Wire::ContentLength, Some(Got::Json(error))) => {
                assert_eq!(error["error"]["code"], -32600, "{error}");
                assert_eq!(error["id"], Value::Null);
                assert_eq!(peer.json().await["result"], 4, "the connection goes on");
                format!("{error}, then the next request answered")
            }
            (Wire::Ws, Some(Got::Close(code))) => {
                assert_eq!(code, 1009);
                "close 1009".to_owned()
            }
            (wire, other) => panic!("{wire:?}: {other:?}"),
        };
        drop(write);
        let peak = rss.finish();
        let end = Rss::now();
        let line = format!(
            "{what}: {:.0} MiB sent in {:.1?}; {refusal}; RSS start {:.1} MiB, peak {:.1} MiB, end {:.1} MiB",
            mib(sent as u64),
            began.elapsed(),
            mib(start),
            mib(peak),
            mib(end)
        );
        eprintln!("{line}");
        report.push(line);
        assert!(
            peak < start + allowed,
            "{what}: memory grew from {start} to {peak}"
        );
    }
    for handle in [http_handle, lines_handle, framed_handle] {
        assert!(handle.shutdown().await);
    }
    eprintln!("\n{}", report.join("\n"));
}

/// A handler that never returns (no request timeout) is dropped when its
/// HTTP client leaves, and on every transport when a shutdown reaches its
/// deadline.
#[tokio::test]
async fn hung_handlers_go_when_their_http_client_leaves_or_at_the_shutdown_deadline() {
    let probe = Probe::default();
    let limits = Limits::default().shutdown_timeout(Duration::from_millis(200));
    let (http_handle, http_addr) = http(&probe, limits.clone()).await;
    let (tcp_handle, tcp_addr) = tcp(&probe, limits, Framing::Lines).await;

    // An HTTP client that leaves takes its request with it.
    let (peer, mut write) = accepted(http_addr, Wire::Http).await;
    let hang = Wire::Http.encode(&call(1, "hang", json!([])));
    write.write_all(&hang).await.unwrap();
    let deadline = Instant::now() + PATIENCE;
    while probe.hangs.load(Ordering::SeqCst) < 1 {
        assert!(Instant::now() < deadline, "the request never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop((peer, write));
    while probe.hangs_dropped.load(Ordering::SeqCst) < 1 {
        assert!(Instant::now() < deadline, "the handler outlived its client");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let mut peers = Vec::new();
    for (addr, wire) in [
        (http_addr, Wire::Http),
        (http_addr, Wire::Ws),
        (tcp_addr, Wire::Lines),
    ] {
        let (peer, mut write) = accepted(addr, wire).await;
        let hang = wire.encode(&call(1, "hang", json!([])));
        write.write_all(&hang).await.unwrap();
        peers.push((peer, write));
    }
    while probe.hangs.load(Ordering::SeqCst) < 4 {
        assert!(Instant::now() < deadline, "the requests never started");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = Instant::now();
    let (http_done, tcp_done) = tokio::join!(http_handle.shutdown(), tcp_handle.shutdown());
    assert!(!http_done && !tcp_done, "the hung handlers did not finish");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Dropped with their connections, not left running.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(probe.hangs_dropped.load(Ordering::SeqCst), 4);
    for (mut peer, _write) in peers {
        assert!(
            peer.next().await.is_none(),
            "{:?}: closed, no reply",
            peer.wire
        );
    }
}
