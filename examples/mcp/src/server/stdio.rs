//! Serving stdio (the way hosts run local servers) and any byte stream:
//! newline-delimited messages, one classic session per stream.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use typed_rpc::transport::stream::{FramedReader, FramedWriter, Framing};
use typed_rpc::transport::{Limits, ServerHandle};
use typed_rpc::{Context, TransportKind};

use super::Server;
use super::session::Session;

/// How long requests still running may take to finish once the client
/// has closed the stream: hosts expect a server to exit within a second
/// or two of closing its stdin.
const AFTER_CLOSE: Duration = Duration::from_secs(1);

/// Serves `server` on the process's stdin and stdout until stdin ends;
/// `handle.stopped()` resolves then. stdout carries only protocol
/// messages: log to stderr.
///
/// ```no_run
/// # async fn demo(server: typed_rpc_mcp::server::Server) {
/// let handle = typed_rpc_mcp::server::serve_stdio(&server);
/// handle.stopped().await;
/// # }
/// ```
pub fn serve_stdio(server: &Server) -> ServerHandle {
    // Pipes (a host's child) are read and written without a thread hop.
    let (stdin, stdout) = typed_rpc::transport::stream::stdio();
    serve(server, stdin, stdout, TransportKind::Stdio)
}

/// Serves `server` on one byte stream (a socket, a pipe) until it ends.
pub fn serve_stream<R, W>(server: &Server, reader: R, writer: W) -> ServerHandle
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve(server, reader, writer, TransportKind::Stream)
}

fn serve<R, W>(server: &Server, reader: R, writer: W, kind: TransportKind) -> ServerHandle
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let limits = Limits::default().shutdown_timeout(AFTER_CLOSE);
    let mut context = Context::new(kind);
    context
        .extensions_mut()
        .insert(Arc::new(Session::default()));
    let reader = FramedReader::new(reader, Framing::Lines, limits.message_size());
    let writer = FramedWriter::new(writer, Framing::Lines);
    typed_rpc::transport::Server::new(server.router())
        .limits(limits)
        .serve_messages(reader, writer, context)
}
