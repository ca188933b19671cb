//! The interface of a message transport: a reader and a writer of whole messages.

use std::future::Future;
use std::io;

use bytes::Bytes;

/// The reading half of a message transport: yields whole messages.
///
/// Implemented by the framings of byte streams and by WebSocket; implement
/// it to run JSON-RPC over any other message channel.
pub trait MessageReader: Send + 'static {
    /// Reads the next message.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Inbound>> + Send;
}

/// What a [`MessageReader`] read.
#[derive(Debug)]
pub enum Inbound {
    /// A whole message.
    Message(Bytes),
    /// A message over the size limit, skipped without being buffered; the
    /// connection goes on.
    TooLarge,
    /// The peer closed its end.
    Closed,
}

/// The writing half of a message transport.
pub trait MessageWriter: Send + 'static {
    /// Queues one message; it goes out at the next [`flush`](MessageWriter::flush) at the latest.
    fn write_message(&mut self, message: &str) -> impl Future<Output = io::Result<()>> + Send;

    /// Sends everything queued.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;

    /// Ends the connection cleanly (a WebSocket close frame, a stream shutdown).
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}
