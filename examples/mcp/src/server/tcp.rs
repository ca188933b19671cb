//! Serving TCP: each connection speaks stdio's framing (a JSON-RPC message
//! per line) and is a classic session of its own, as the stdio binding
//! says custom stream transports should.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::{Server, serve_stream};

/// A running TCP server.
#[derive(Debug)]
pub struct TcpRunning {
    local_addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl TcpRunning {
    /// Where it listens (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Stops accepting and ends every connection (their requests in flight
    /// may finish first, up to a second).
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

/// Serves `server` on TCP at `addr`, at most `max_connections` at once (a
/// connection beyond waits to be served).
///
/// ```no_run
/// # async fn demo(server: typed_rpc_mcp::server::Server) -> std::io::Result<()> {
/// let running = typed_rpc_mcp::server::serve_tcp(&server, "127.0.0.1:4000", 64).await?;
/// println!("MCP on tcp://{}", running.local_addr());
/// # Ok(()) }
/// ```
pub async fn serve_tcp(
    server: &Server,
    addr: impl ToSocketAddrs,
    max_connections: usize,
) -> io::Result<TcpRunning> {
    let listener = TcpListener::bind(addr).await?;
    let local_addr = listener.local_addr()?;
    let stop = CancellationToken::new();
    let task = tokio::spawn(accept(
        listener,
        server.clone(),
        max_connections,
        stop.clone(),
    ));
    Ok(TcpRunning {
        local_addr,
        stop,
        task,
    })
}

async fn accept(listener: TcpListener, server: Server, max: usize, stop: CancellationToken) {
    let room = Arc::new(Semaphore::new(max.max(1)));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let place = tokio::select! {
            place = room.clone().acquire_owned() => place.expect("never closed"),
            () = stop.cancelled() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    tracing::debug!(%err, "accept failed");
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let (read, write) = stream.into_split();
        let handle = serve_stream(&server, read, write);
        let stop = stop.clone();
        connections.spawn(async move {
            let ended = tokio::select! {
                () = handle.stopped() => true,
                () = stop.cancelled() => false,
            };
            if !ended {
                handle.shutdown().await;
            }
            drop(place);
        });
        while connections.try_join_next().is_some() {}
    }
    while connections.join_next().await.is_some() {}
}
