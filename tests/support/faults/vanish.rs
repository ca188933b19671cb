//! Clients that vanish in the middle of a request or of a response.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use typed_rpc::transport::Limits;

use super::{MIB, accepted, check};
use crate::support::raw::{PATIENCE, Wire, call};

/// What a client does on an accepted connection before it vanishes.
pub enum Vanish {
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
pub async fn vanish(addr: SocketAddr, wire: Wire, faults: Vec<(&str, Vanish)>) {
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

pub fn big_reply(wire: Wire) -> Vanish {
    Vanish::MidReply(wire.encode(&call(9, "blob", json!([8 * MIB]))))
}

pub fn two_slots() -> Limits {
    Limits::default().max_connections(2)
}
