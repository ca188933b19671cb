//! HTTP peers that fault: clients that vanish mid-request or mid-response,
//! and slow peers cut off at the header and body timeouts. Raw peers over
//! plain sockets; every byte the server sends them is parsed.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typed_rpc::transport::Limits;

use crate::support::faults::vanish::{Vanish, big_reply, two_slots, vanish};
use crate::support::faults::{Probe, accepted, check, http};
use crate::support::raw::{Got, PATIENCE, Wire, call, connect};

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
