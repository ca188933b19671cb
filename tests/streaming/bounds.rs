//! A reader that never reads slows its producer to a stop: a stream of a
//! million items held by such a reader makes only what the socket buffers
//! and the bounded queues take, and the server's memory stays flat.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use typed_rpc::transport::Limits;

use crate::api::Server as TickerServer;

const MILLION: u64 = 1_000_000;

/// The resident set of this process, in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Waits until `made` stops growing; what it stopped at.
async fn stalls(made: &AtomicUsize) -> usize {
    let mut last = made.load(Ordering::SeqCst);
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = made.load(Ordering::SeqCst);
        if now == last {
            return now;
        }
        last = now;
    }
}

async fn holds_without_reading(peer: &mut TcpStream, made: &AtomicUsize) {
    let before = rss();
    let stalled = tokio::time::timeout(Duration::from_secs(20), stalls(made))
        .await
        .expect("the producer stops");
    assert!(
        stalled < (MILLION / 10) as usize,
        "only what the buffers hold is made, not {stalled} of a million"
    );
    let grown = rss().saturating_sub(before);
    assert!(grown < 64 << 20, "the server grew by {grown} bytes");
    // The peer is still there: the stream is held, not cut.
    peer.write_all(b"\n").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_that_never_reads_stops_the_producer() {
    let server = TickerServer::default();
    let made = server.made.clone();
    let handle = crate::subscriptions::serve_tcp(server).await;
    let mut peer = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let call = format!(r#"{{"jsonrpc":"2.0","method":"flood","params":[{MILLION}],"id":1}}"#);
    peer.write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    holds_without_reading(&mut peer, &made).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_client_that_never_reads_stops_the_producer() {
    let server = TickerServer::default();
    let made = server.made.clone();
    let handle = crate::sse::serve(server, Limits::default()).await;
    let mut peer = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let call = format!(r#"{{"jsonrpc":"2.0","method":"flood","params":[{MILLION}],"id":1}}"#);
    let request = format!(
        "POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n{call}",
        call.len()
    );
    peer.write_all(request.as_bytes()).await.unwrap();
    holds_without_reading(&mut peer, &made).await;
}
