//! Serving byte streams: one stream, stdio, or each connection of a TCP
//! listener, framed by lines or by `Content-Length` headers.

use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::ToSocketAddrs;

use super::{Lifecycle, Refusals, Server, ServerHandle, accept_loop, bind};
use crate::transport::connection::Timers;
use crate::transport::stream::{FirstMessageWithin, FramedReader, FramedWriter, Framing};
use crate::{Context, TransportKind};

/// What a TCP server sends a connection before closing it, when it has no
/// room for it or none for its address, in each framing.
const TCP_REFUSALS: Refusals = Refusals {
    full: b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Too many connections\"},\"id\":null}\n",
    peer_limit: b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Too many connections from this address\"},\"id\":null}\n",
};
const TCP_REFUSALS_FRAMED: Refusals = Refusals {
    full: b"Content-Length: 84\r\n\r\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Too many connections\"},\"id\":null}",
    peer_limit: b"Content-Length: 102\r\n\r\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Too many connections from this address\"},\"id\":null}",
};

/// How long a TCP connection that the server closes first goes on being
/// read, until the peer closes its end too (see `Server::drive`).
const LINGER: Duration = Duration::from_secs(5);

impl Server {
    /// Serves one connection over `reader` and `writer` until the peer closes
    /// it or the server is shut down.
    pub fn serve_stream<R, W>(&self, reader: R, writer: W, framing: Framing) -> ServerHandle
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_one(reader, writer, framing, Context::new(TransportKind::Stream))
    }

    /// Serves the process's stdin and stdout until stdin ends.
    ///
    /// stdout then carries only protocol messages: log to stderr. When
    /// stdin and stdout are pipes (a host running the server as its child)
    /// they are read and written on the runtime's reactor, without tokio's
    /// thread hop per read and write (see [`stdio`](crate::transport::stream::stdio)).
    pub fn serve_stdio(&self, framing: Framing) -> ServerHandle {
        let context = Context::new(TransportKind::Stdio);
        #[cfg(unix)]
        let (stdin, stdout) = crate::transport::stream::stdio();
        #[cfg(not(unix))]
        let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
        self.serve_one(stdin, stdout, framing, context)
    }

    fn serve_one<R, W>(
        &self,
        reader: R,
        writer: W,
        framing: Framing,
        context: Context,
    ) -> ServerHandle
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let reader = FramedReader::new(reader, framing, self.limits.message_size());
        let writer = FramedWriter::new(writer, framing);
        self.serve_messages(reader, writer, context)
    }

    /// Listens on `addr` and serves each TCP connection, many requests per
    /// connection, pipelined.
    ///
    /// When the server closes a connection first (a graceful shutdown), it
    /// goes on reading it, discarding what comes, until the peer closes its
    /// end too, for up to 5 seconds: closing a socket with unread input
    /// resets the connection, and the reset would throw away the replies
    /// still on their way to a peer that reads slowly. In a shutdown, that
    /// wait counts toward [`Limits::shutdown_timeout`](crate::transport::Limits::shutdown_timeout).
    pub fn serve_tcp<A: ToSocketAddrs>(
        &self,
        addr: A,
        framing: Framing,
    ) -> impl Future<Output = io::Result<ServerHandle>> + use<A> {
        // Owns its copy, as `serve_http` does.
        let server = self.clone();
        async move {
            let (listener, local_addr) = bind(addr).await?;
            let lifecycle = Lifecycle::default();
            let limits = server.limits.clone();
            let connections = lifecycle.clone();
            accept_loop(
                listener,
                &limits,
                &lifecycle,
                match framing {
                    Framing::Lines => TCP_REFUSALS,
                    Framing::ContentLength => TCP_REFUSALS_FRAMED,
                },
                limits.idle_wait(),
                move |stream, peer, presence| {
                    let (reader, writer) = stream.into_split();
                    let limits = &server.limits;
                    let reader = FramedReader::new(reader, framing, limits.message_size());
                    // A peer that connects and says nothing is dropped as
                    // soon as an HTTP client that sends no headers would be.
                    let reader = FirstMessageWithin::new(reader, limits.header_wait());
                    let writer = FramedWriter::new(writer, framing);
                    let context = Context::new(TransportKind::Tcp).with_remote_addr(peer);
                    let timers = Timers {
                        idle: Some(limits.idle_wait()),
                        write: Some(limits.write_wait()),
                        linger: Some(LINGER),
                    };
                    let presence = Some(presence.clone());
                    server.drive(reader, writer, context, &connections, timers, presence)
                },
            );
            Ok(ServerHandle::new(
                Some(local_addr),
                lifecycle,
                limits.shutdown_wait(),
            ))
        }
    }
}
