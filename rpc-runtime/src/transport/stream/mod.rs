//! JSON-RPC over byte streams: stdio, TCP, a child process's pipes, or any
//! `AsyncRead + AsyncWrite`, framed by lines or by `Content-Length` headers.
//!
//! Serving stdio, as an MCP server or a language server does (stdout carries
//! only messages; log to stderr; the server stops when stdin ends):
//!
//! ```no_run
//! # async fn demo(router: typed_rpc::Router) {
//! use typed_rpc::transport::stream::Framing;
//! use typed_rpc::transport::Server;
//!
//! let server = Server::new(router).serve_stdio(Framing::ContentLength);
//! server.stopped().await;
//! # }
//! ```
//!
//! Running a server as a child process and calling it, as an MCP host does:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use typed_rpc::client::ClientExt;
//! use typed_rpc::transport::stream::{Framing, StreamConnector};
//!
//! let mut command = tokio::process::Command::new("my-mcp-server");
//! let child = StreamConnector::new(Framing::Lines).spawn(&mut command)?;
//! let tools: serde_json::Value = child.connection().call("tools/list", None).await.unwrap();
//! child.close().await?;
//! # let _ = tools; Ok(()) }
//! ```

mod framing;

use std::io;
use std::net::SocketAddr;
use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::ToSocketAddrs;
use tokio::process::{Child, Command};

pub use framing::{FramedReader, FramedWriter, Framing};

use super::connection::{self, Connection};
use super::{Inbound, MessageReader};
use crate::{Context, Router, TransportKind};

/// Ends the stream when no first message arrives in time.
///
/// The deadline is fixed when the connection opens, so a read that is
/// cancelled and resumed does not extend it.
pub(crate) struct FirstMessageWithin<R> {
    inner: R,
    deadline: Option<tokio::time::Instant>,
}

impl<R> FirstMessageWithin<R> {
    pub(crate) fn new(inner: R, within: Duration) -> Self {
        FirstMessageWithin {
            inner,
            deadline: Some(tokio::time::Instant::now() + within),
        }
    }
}

impl<R: MessageReader> MessageReader for FirstMessageWithin<R> {
    async fn read_message(&mut self) -> io::Result<Inbound> {
        let Some(deadline) = self.deadline else {
            return self.inner.read_message().await;
        };
        match tokio::time::timeout_at(deadline, self.inner.read_message()).await {
            Ok(read) => {
                self.deadline = None;
                read
            }
            Err(_) => {
                tracing::debug!("a connection sent nothing in time: closed");
                Ok(Inbound::Closed)
            }
        }
    }
}

/// Opens client connections over byte streams.
///
/// The connection is two-way: requests the server sends are answered by
/// the [`handlers`](StreamConnector::handlers) router (by default, with
/// `-32601`).
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// use std::time::Duration;
/// use typed_rpc::client::ClientExt;
/// use typed_rpc::transport::stream::{Framing, StreamConnector};
///
/// let connection = StreamConnector::new(Framing::Lines).connect_tcp("127.0.0.1:4000").await?;
/// let connection = connection.with_timeout(Duration::from_secs(5));
/// let sum: i64 = connection.call("sum", None).await.unwrap();
/// # let _ = sum; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct StreamConnector {
    framing: Framing,
    handlers: Router,
    max_message_size: usize,
    max_in_flight: usize,
}

impl StreamConnector {
    /// A connector using `framing`, with default limits and no handlers.
    pub fn new(framing: Framing) -> Self {
        let limits = super::Limits::default();
        StreamConnector {
            framing,
            handlers: Router::empty(),
            max_message_size: limits.message_size(),
            max_in_flight: limits.in_flight(),
        }
    }

    /// Serves the server's requests and notifications with `router` (an LSP
    /// client answering `workspace/configuration`, say).
    pub fn handlers(mut self, router: Router) -> Self {
        self.handlers = router;
        self
    }

    /// The largest message accepted from the server, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Opens a connection over `reader` and `writer`. Must be called within a
    /// tokio runtime, which drives the connection.
    pub fn connect<R, W>(&self, reader: R, writer: W) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.open(reader, writer, Context::new(TransportKind::Stream))
    }

    /// Connects to a TCP server.
    pub async fn connect_tcp(&self, addr: impl ToSocketAddrs) -> io::Result<Connection> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let peer: SocketAddr = stream.peer_addr()?;
        let (reader, writer) = stream.into_split();
        let context = Context::new(TransportKind::Tcp).with_remote_addr(peer);
        Ok(self.open(reader, writer, context))
    }

    /// Starts `command` with piped stdin and stdout and connects to it; its
    /// stderr goes to ours.
    pub fn spawn(&self, command: &mut Command) -> io::Result<ChildProcess> {
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the child's stdio was not piped"));
        };
        let connection = self.open(stdout, stdin, Context::new(TransportKind::Stdio));
        Ok(ChildProcess { connection, child })
    }

    fn open<R, W>(&self, reader: R, writer: W, context: Context) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let reader = FramedReader::new(reader, self.framing, self.max_message_size);
        let writer = FramedWriter::new(writer, self.framing);
        connection::open_client(
            reader,
            writer,
            self.handlers.clone(),
            context,
            self.max_in_flight,
        )
    }
}

/// A server running as a child process, connected through its stdin and stdout.
#[derive(Debug)]
pub struct ChildProcess {
    connection: Connection,
    child: Child,
}

impl ChildProcess {
    /// The connection to the child.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The child process.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Ends the session as MCP prescribes: closes the child's stdin, waits
    /// up to five seconds for it to exit, then kills it.
    pub async fn close(mut self) -> io::Result<ExitStatus> {
        self.connection.close();
        self.connection.closed().await;
        match tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                self.child.kill().await?;
                self.child.wait().await
            }
        }
    }
}
