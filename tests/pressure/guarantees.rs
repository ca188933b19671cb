//! What pressure must not do: cut off a client with work in flight, or
//! refuse one address for another's flood.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncWriteExt;
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;

use crate::client::{Failure, HOME, Io, Transport, add, connect, fresh_call, open};
use crate::flood::{Then, flood};
use crate::one_at_a_time;
use crate::support::faults::{self, Probe};
use crate::support::raw::{FIN, OP_TEXT, WS_MASK, call, post, ws_frame};

/// A second loopback address: another client.
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// Sends a call of `nap` that takes `millis` to answer.
async fn start_nap(transport: Transport, io: &mut Io, millis: u64) {
    let request = call(7, "nap", json!([millis, "slow", 0]));
    let bytes = match transport {
        Transport::Http => post(&request),
        Transport::Ws => ws_frame(FIN | OP_TEXT, request.as_bytes(), WS_MASK),
        Transport::Tcp => format!("{request}\n").into_bytes(),
    };
    io.stream.write_all(&bytes).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_call_in_flight_is_not_cut_off_under_pressure() {
    let _alone = one_at_a_time().await;
    // Scaled down: what is checked is which connection gives way, not how
    // many there are.
    let limits = Limits::default().max_connections(128);
    let probe = Probe::default();
    let (http, http_addr) = faults::http(&probe, limits.clone()).await;
    let (tcp, tcp_addr) = faults::tcp(&probe, limits, Framing::Lines).await;

    let mut slow = Vec::new();
    for (transport, addr) in [
        (Transport::Http, http_addr),
        (Transport::Ws, http_addr),
        (Transport::Tcp, tcp_addr),
    ] {
        let mut io = open(transport, addr, HOME).await.unwrap();
        start_nap(transport, &mut io, 4000).await;
        slow.push((transport, io));
    }
    // Waves of idle connections, over the limit, while the calls run: the
    // later waves find idle connections to replace, and the sweep closes
    // idle ones at capacity.
    let mut floods = Vec::new();
    for _ in 0..3 {
        floods.push(flood(Transport::Http, http_addr, HOME, 256, Then::OneCall).await);
        floods.push(flood(Transport::Tcp, tcp_addr, HOME, 256, Then::OneCall).await);
        tokio::time::sleep(Duration::from_millis(1200)).await;
    }
    for (transport, mut io) in slow {
        // The reply to the slow call, then another call on the same
        // connection: it was not cut off.
        let reply = slow_reply(transport, &mut io).await;
        assert_eq!(reply["result"], "slow", "{transport:?}: {reply}");
        add(transport, &mut io)
            .await
            .unwrap_or_else(|failure| panic!("{transport:?}: {failure:?}"));
    }
    drop(floods);
    assert!(http.shutdown().await);
    assert!(tcp.shutdown().await);
}

/// The slow call's reply, read as the client reads any reply.
async fn slow_reply(transport: Transport, io: &mut Io) -> serde_json::Value {
    io.reply(transport)
        .await
        .unwrap_or_else(|failure| panic!("{transport:?}: {failure:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_per_peer_limit_refuses_the_flood_address_only() {
    let _alone = one_at_a_time().await;
    let limits = Limits::default().max_connections_per_peer(32);
    let probe = Probe::default();
    let (http, http_addr) = faults::http(&probe, limits.clone()).await;
    let (tcp, tcp_addr) = faults::tcp(&probe, limits, Framing::Lines).await;

    for (transport, addr) in [(Transport::Http, http_addr), (Transport::Tcp, tcp_addr)] {
        let flooded = flood(transport, addr, HOME, 48, Then::OneCall).await;
        assert_eq!(flooded.held.len(), 32, "{transport:?}");
        // The flood's address is refused at once, saying why.
        let mut refused = Io::new(connect(addr, HOME).await.unwrap());
        match (transport, refused.reply(transport).await) {
            (Transport::Http, Err(Failure::Status(429, head))) => {
                assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
            }
            (Transport::Tcp, Err(Failure::Error(error))) => {
                assert_eq!(error["error"]["code"], -32000);
                assert_eq!(
                    error["error"]["message"],
                    "Too many connections from this address"
                );
            }
            (_, other) => panic!("{transport:?}: {other:?}"),
        }
        // Another address is served.
        fresh_call(transport, addr, OTHER)
            .await
            .unwrap_or_else(|failure| panic!("{transport:?} from another address: {failure:?}"));
        // And so is the flood's address again once it lets go.
        drop(flooded);
        let mut served = false;
        for _ in 0..50 {
            if fresh_call(transport, addr, HOME).await.is_ok() {
                served = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(served, "{transport:?}: the address was never served again");
    }
    // A WebSocket handshake counts on the HTTP port as any connection does.
    let _held = flood(Transport::Ws, http_addr, HOME, 32, Then::Idle).await;
    match open(Transport::Ws, http_addr, HOME).await {
        Err(Failure::Status(429, _)) | Err(Failure::Broken(_)) => {}
        other => panic!("a 33rd WebSocket: {:?}", other.map(|_| ())),
    }
    fresh_call(Transport::Ws, http_addr, OTHER).await.unwrap();
    assert!(http.shutdown().await);
    assert!(tcp.shutdown().await);
}
