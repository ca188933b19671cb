//! Serving HTTPS: [`Server::serve_https`], HTTP over TLS.

use std::future::Future;
use std::io;

use tokio::net::ToSocketAddrs;
use tokio_rustls::TlsAcceptor;

use super::http::start;
use super::{Refusals, Server, ServerHandle, bind};
use crate::transport::http::serve_connection;
use crate::transport::tls::{self, TlsConfig};

/// A refused connection is closed without a word: before the handshake,
/// nothing written would reach the client as HTTP.
const REFUSALS: Refusals = Refusals {
    full: b"",
    peer_limit: b"",
};

impl Server {
    /// Serves JSON-RPC over HTTPS on `addr`, with the certificate of `tls`,
    /// until the returned handle is shut down (cargo feature `tls`).
    ///
    /// Everything [`serve_http`](Server::serve_http) says holds, inside
    /// TLS: HTTP/2 when the client chooses `h2` by ALPN (browsers, curl,
    /// [`HttpClient`](crate::transport::HttpClient)), HTTP/1.1 otherwise,
    /// and WebSocket upgrades (`wss://`) on HTTP/1.1. The TLS handshake
    /// counts against the connection limits from the moment the connection
    /// is accepted, and must be done within
    /// [`Limits::header_timeout`](crate::transport::Limits::header_timeout):
    /// a peer that never finishes it is disconnected then. A connection
    /// beyond the limits is closed without a response (there is no TLS
    /// session to carry one yet).
    ///
    /// ```no_run
    /// use typed_rpc::transport::Server;
    /// use typed_rpc::transport::tls::TlsConfig;
    /// # async fn demo(router: typed_rpc::Router) -> Result<(), Box<dyn std::error::Error>> {
    ///
    /// let tls = TlsConfig::from_pem_files("fullchain.pem", "key.pem")?;
    /// let handle = Server::new(router).serve_https("0.0.0.0:8443", tls).await?;
    /// println!("listening on https://{}", handle.local_addr().unwrap());
    /// # Ok(()) }
    /// ```
    pub fn serve_https<A: ToSocketAddrs>(
        &self,
        addr: A,
        tls: TlsConfig,
    ) -> impl Future<Output = io::Result<ServerHandle>> + use<A> {
        let server = self.clone();
        let acceptor = TlsAcceptor::from(tls.rustls().clone());
        async move {
            let (listener, local_addr) = bind(addr).await?;
            let handshake_timeout = server.limits.header_wait();
            Ok(start(
                server,
                listener,
                local_addr,
                REFUSALS,
                move |stream, peer, presence, shared, builder| {
                    let acceptor = acceptor.clone();
                    async move {
                        let stopping = presence.stop().clone();
                        let Some(stream) =
                            tls::accept(&acceptor, stream, peer, handshake_timeout, &stopping)
                                .await
                        else {
                            return;
                        };
                        serve_connection(builder, stream, peer, shared, presence).await;
                    }
                },
            ))
        }
    }
}
