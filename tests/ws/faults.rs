//! WebSocket peers that fault: clients that never read their replies, and
//! clients that vanish mid-frame or mid-message. Raw peers over plain
//! sockets; every frame the server sends them is parsed.

use serde_json::json;

use crate::support::faults::backpressure::{
    Load, a_client_that_never_reads_is_cut_off_at_the_write_timeout, backpressure_limits,
    never_reads,
};
use crate::support::faults::vanish::{Vanish, big_reply, two_slots, vanish};
use crate::support::faults::{MIB, Probe, accepted, check, http, max_send_buffer};
use crate::support::raw::{
    FIN, KIB, OP_TEXT, WS_NO_MASK, Wire, call, connect, ws_frame, ws_handshake, ws_header,
};

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
async fn a_websocket_client_that_never_reads_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Ws, false).await;
}

/// On WebSocket the reader sends a reply that finished at once itself; the
/// part the peer does not take still goes out under the write timeout.
#[tokio::test]
async fn a_websocket_client_that_never_reads_one_huge_reply_is_cut_off_at_the_write_timeout() {
    a_client_that_never_reads_is_cut_off_at_the_write_timeout(Wire::Ws, true).await;
}

#[tokio::test]
async fn websocket_clients_that_vanish_mid_request_or_mid_response_disturb_no_one() {
    let probe = Probe::default();
    let (handle, addr) = http(&probe, two_slots()).await;
    let message = call(1, "add", json!([1, 1]));
    let mut half_frame = ws_header(FIN | OP_TEXT, message.len() as u64, WS_NO_MASK);
    half_frame.extend_from_slice(&message.as_bytes()[..10]);
    let first_fragment = ws_frame(OP_TEXT, &message.as_bytes()[..10], WS_NO_MASK);
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
