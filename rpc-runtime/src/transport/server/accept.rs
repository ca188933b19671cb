//! Accepting TCP connections under the connection limit.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::Lifecycle;
use crate::transport::Limits;

/// Binds a TCP listener.
pub(crate) async fn bind(
    addr: impl tokio::net::ToSocketAddrs,
) -> io::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}

/// Accepts connections until the server stops, serving each with `serve`
/// while there is room under the connection limit. A connection beyond the
/// limit is sent `refusal` (best effort) and closed at once.
pub(crate) fn accept_loop<F, Fut>(
    listener: TcpListener,
    limits: &Limits,
    lifecycle: &Lifecycle,
    refusal: &'static [u8],
    serve: F,
) where
    F: Fn(TcpStream, SocketAddr) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(limits.connections()));
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
            match permits.clone().try_acquire_owned() {
                Ok(permit) => {
                    let connection = serve(stream, peer);
                    connections.spawn(async move {
                        connection.await;
                        drop(permit);
                    });
                }
                Err(_) => {
                    tracing::warn!(%peer, "connection refused: too many connections");
                    let _ = stream.try_write(refusal);
                }
            }
        }
    });
}
