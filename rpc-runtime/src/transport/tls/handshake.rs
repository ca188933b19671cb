//! The server's side of a TLS handshake, bounded in time.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

/// Completes the TLS handshake of a connection the listener admitted, or
/// gives up: when it takes longer than `timeout` (the header timeout: a
/// peer that opens a connection and never speaks TLS must not hold its
/// slot), when the server stops or the listener needs the slot
/// (`stopping`), or when the peer's TLS is not acceptable.
pub(crate) async fn accept(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
    timeout: Duration,
    stopping: &CancellationToken,
) -> Option<TlsStream<TcpStream>> {
    let handshake = tokio::select! {
        () = stopping.cancelled() => return None,
        handshake = tokio::time::timeout(timeout, acceptor.accept(stream)) => handshake,
    };
    match handshake {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(err)) => {
            tracing::debug!(%peer, %err, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!(%peer, "no TLS handshake within the header timeout");
            None
        }
    }
}
