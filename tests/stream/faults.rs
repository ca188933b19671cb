//! Stream peers that fault, on TCP and in-memory streams: clients that
//! never read their replies, and clients that vanish mid-message. Raw peers
//! over plain sockets; every message the server sends them is parsed.

use serde_json::json;
use tokio::io::AsyncWriteExt;
use typed_rpc::transport::stream::Framing;

use crate::support::faults::backpressure::{
    Load, a_client_that_never_reads_is_cut_off_at_the_write_timeout, backpressure_limits,
    never_reads,
};
use crate::support::faults::vanish::{Vanish, big_reply, two_slots, vanish};
use crate::support::faults::{MIB, Probe, accepted, check, max_send_buffer, server, tcp};
use crate::support::raw::{KIB, Peer, Wire, call, connect};

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

#[tokio::test]
async fn a_tcp_client_that_never_reads_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Lines, false).await;
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
