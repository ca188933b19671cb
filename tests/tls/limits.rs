//! The limits over TLS: a peer that never finishes its handshake is
//! dropped after the header timeout, and holds a slot only until then.

use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::{Limits, ServerHandle};

use crate::certs::Authority;
use crate::support::calculator::CalculatorClient;
use crate::{PATIENCE, https_url, serve_https};

const HEADER_TIMEOUT: Duration = Duration::from_millis(400);

fn https_client(handle: &ServerHandle, authority: &Authority) -> HttpClient {
    HttpClient::builder(&https_url(handle))
        .tls(authority.client_tls())
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

/// Reads until the server closes `stream`, or `PATIENCE` passes.
async fn closed_after(stream: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buf = [0; 256];
    loop {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => {}
            Err(_) => panic!("the server kept a silent connection for {PATIENCE:?}"),
        }
    }
}

/// An HTTPS server with the test's header timeout, and a plain TCP
/// connection to it that has sent nothing yet.
async fn connected_under_header_timeout() -> (ServerHandle, TcpStream) {
    let authority = Authority::new("test CA");
    let limits = Limits::default().header_timeout(HEADER_TIMEOUT);
    let handle = serve_https(limits, authority.server_tls()).await;
    let peer = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    (handle, peer)
}

#[tokio::test]
async fn a_peer_that_never_handshakes_is_dropped_after_the_header_timeout() {
    let (handle, mut silent) = connected_under_header_timeout().await;
    let waited = closed_after(&mut silent).await;
    assert!(
        waited >= HEADER_TIMEOUT,
        "closed after {waited:?}, before the timeout"
    );
    assert!(waited < HEADER_TIMEOUT * 4, "closed only after {waited:?}");
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_peer_stuck_in_the_handshake_is_dropped_too() {
    let (handle, mut stuck) = connected_under_header_timeout().await;
    // The first bytes of a ClientHello's record, and then nothing.
    tokio::io::AsyncWriteExt::write_all(&mut stuck, &[0x16, 0x03, 0x01, 0x02, 0x00])
        .await
        .unwrap();
    let waited = closed_after(&mut stuck).await;
    assert!(waited < HEADER_TIMEOUT * 4, "closed only after {waited:?}");
    assert!(handle.shutdown().await);
}

/// A handshaking connection holds a slot of `max_connections`: with the
/// only slot held by a silent peer, a client gets in once the registry
/// takes that slot back (the silent peer is idle, so it is closed to make
/// room), and never waits for more than the header timeout.
#[tokio::test]
async fn a_silent_peer_holds_a_slot_only_until_room_is_needed() {
    let authority = Authority::new("test CA");
    let limits = Limits::default()
        .header_timeout(Duration::from_secs(30))
        .max_connections(1)
        .idle_timeout_at_capacity(Duration::from_millis(100));
    let handle = serve_https(limits, authority.server_tls()).await;
    let mut silent = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let client = CalculatorClient::new(https_client(&handle, &authority));
    assert_eq!(client.subtract(3, 1).await.unwrap(), 2);
    let waited = closed_after(&mut silent).await;
    assert!(waited < PATIENCE, "the silent peer kept its slot");
    assert!(handle.shutdown().await);
}

/// A call its client gives up on (over HTTP/2, a stream reset while its
/// connection stays open) is no longer work in flight: the idle connection
/// gives up its slot when another client needs it.
#[tokio::test]
async fn a_stream_its_client_reset_does_not_keep_the_connection_busy() {
    let authority = Authority::new("test CA");
    let limits = Limits::default()
        .max_connections(1)
        .idle_timeout_at_capacity(Duration::from_millis(100));
    let handle = serve_https(limits, authority.server_tls()).await;
    let impatient = HttpClient::builder(&https_url(&handle))
        .tls(authority.client_tls())
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let impatient = CalculatorClient::new(impatient);
    assert!(
        impatient.slow(10_000).await.is_err(),
        "the call outlived its timeout"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let patient = CalculatorClient::new(https_client(&handle, &authority));
    assert_eq!(patient.subtract(3, 1).await.unwrap(), 2);
    assert!(handle.shutdown().await);
}
