//! Flood: 1 GiB at the server on each transport, the process's memory
//! sampled. Ignored: run it by hand (SECURITY.md says how).

use std::net::SocketAddr;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;

use crate::support::faults::{MIB, Probe, http, tcp};
use crate::support::raw::{
    Got, KIB, OP_CONTINUATION, OP_TEXT, Peer, WS_NO_MASK, Wire, call, connect, ws_frame,
    ws_handshake,
};
use crate::support::rss::Rss;

const GIB: usize = 1 << 30;

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
                    .write_all(&ws_frame(OP_TEXT, &xs, WS_NO_MASK))
                    .await
                    .unwrap();
                let frame = ws_frame(OP_CONTINUATION, &xs, WS_NO_MASK);
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
