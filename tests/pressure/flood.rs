//! The attacker: many connections, opened many at a time, then held open
//! doing nothing.

use std::net::{IpAddr, SocketAddr};

use tokio::net::TcpStream;
use tokio::task::JoinSet;

use crate::client::{Transport, fresh_call, open};

/// How many connections the attacker has opening at once.
const AT_ONCE: usize = 64;

/// What a flood got: the connections it holds, and how many the server
/// refused (or closed before they were through).
pub struct Flood {
    pub held: Vec<TcpStream>,
    pub refused: usize,
}

/// What each connection of a flood does before it goes quiet.
#[derive(Clone, Copy)]
pub enum Then {
    /// Nothing (on WebSocket, after the handshake).
    Idle,
    /// One call, and its reply read.
    OneCall,
}

/// Opens `count` connections over `transport` from `from`, each doing
/// `then` and then holding on.
pub async fn flood(
    transport: Transport,
    addr: SocketAddr,
    from: IpAddr,
    count: usize,
    then: Then,
) -> Flood {
    // Started as others finish, never all at once: the attacker's own
    // memory counts in the process's too.
    let mut opening = JoinSet::new();
    let mut started = 0;
    let mut flood = Flood {
        held: Vec::with_capacity(count),
        refused: 0,
    };
    loop {
        while started < count && opening.len() < AT_ONCE {
            opening.spawn(async move {
                let io = match then {
                    Then::Idle => open(transport, addr, from).await,
                    Then::OneCall => fresh_call(transport, addr, from).await,
                };
                io.ok().map(|io| io.into_stream())
            });
            started += 1;
        }
        match opening.join_next().await {
            Some(opened) => match opened.unwrap() {
                Some(stream) => flood.held.push(stream),
                None => flood.refused += 1,
            },
            None => break,
        }
    }
    flood
}
