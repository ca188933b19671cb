//! Accepting TCP connections under the connection limits, and making room
//! under pressure (see `admission.rs`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use super::Lifecycle;
use super::admission::{Refusal, Registry};
use crate::transport::Limits;
use crate::transport::sync::presence::Presence;
use crate::transport::sync::rare_events::Rare;

/// How often the idle timeouts are checked against the pressure, and the
/// resolution of the clock that tells which connection is idle longest.
const SWEEP_EVERY: Duration = Duration::from_millis(250);

/// What a refused connection is sent (best effort) before it is closed.
pub(crate) struct Refusals {
    /// Every slot is taken by a connection that is busy or idle too briefly.
    pub(crate) full: &'static [u8],
    /// The peer's address holds [`Limits::max_connections_per_peer`] already.
    pub(crate) peer_limit: &'static [u8],
}

/// Binds a TCP listener.
pub(crate) async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> io::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}

/// Accepts connections until the server stops, serving each with `serve`
/// while the registry admits it (its presence tells the connection when to
/// close, and the registry how idle it is); `idle_timeout` is how long its
/// connections idle before they close. A refused connection is sent its
/// refusal and closed at once.
pub(crate) fn accept_loop<F, Fut>(
    listener: TcpListener,
    limits: &Limits,
    lifecycle: &Lifecycle,
    refusals: Refusals,
    idle_timeout: Duration,
    serve: F,
) where
    F: Fn(TcpStream, SocketAddr, &Arc<Presence>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let registry = Registry::new(
        limits.connections(),
        limits.connections_per_peer(),
        limits.idle_wait_at_capacity(),
        lifecycle.stopping.clone(),
    );
    sweep_until_stopped(registry.clone(), lifecycle);
    let connections = lifecycle.clone();
    let stopping = lifecycle.stopping.clone();
    lifecycle.spawn(async move {
        loop {
            // Stopping comes first: once a shutdown has begun, a connection
            // already waiting in the backlog is not taken any more.
            let accepted = tokio::select! {
                biased;
                () = stopping.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait for some to free up.
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            match registry.admit(peer.ip(), idle_timeout) {
                Ok(admission) => {
                    let connection = serve(stream, peer, admission.presence());
                    let abandoned = admission.presence().abandoned().clone();
                    connections.spawn(async move {
                        // A closing connection told to drop its closing
                        // handshake is dropped whole: it owes nothing.
                        let mut abandon = Rare::new(abandoned.cancelled_owned());
                        let _ = abandon.race(pin!(connection)).await;
                        drop(admission);
                    });
                }
                Err(Refusal::Full) => {
                    tracing::warn!(%peer, "connection refused: too many connections");
                    let _ = stream.try_write(refusals.full);
                }
                Err(Refusal::PeerLimit) => {
                    tracing::warn!(%peer, "connection refused: too many from its address");
                    let _ = stream.try_write(refusals.peer_limit);
                }
            }
        }
    });
}

/// Sweeps the registry (see [`Registry::sweep`]) until the server stops.
fn sweep_until_stopped(registry: Arc<Registry>, lifecycle: &Lifecycle) {
    let stopping = lifecycle.stopping.clone();
    lifecycle.spawn(async move {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stopping.cancelled() => break,
                _ = every.tick() => registry.sweep(),
            }
        }
    });
}
