//! A graceful shutdown while every transport is busy: every request the
//! server accepted is answered, and handlers that never return are dropped
//! at the shutdown's deadline.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;

use crate::support::faults::{Probe, accepted, http, tcp};
use crate::support::raw::{
    FIN, Got, KIB, OP_CLOSE, PATIENCE, Peer, WS_NO_MASK, Wire, call, connect, post, ws_frame,
    ws_handshake,
};

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
                let frame = ws_frame(FIN | OP_CLOSE, &code.to_be_bytes(), WS_NO_MASK);
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
