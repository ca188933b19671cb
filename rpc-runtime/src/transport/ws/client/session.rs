//! The client's side of one WebSocket connection, over tokio-tungstenite
//! (the server's side has its own framing, in `ws/server/socket.rs`):
//! the connection engine's reader and writer over tungstenite's two halves,
//! the close codes, and the closing handshake once the engine is done.

use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::error::ProtocolError;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};

use crate::transport::connection::{
    self, Connection, Inbound, MessageReader, MessageWriter, Setup, ViaWriter,
};
use crate::transport::sync::lock;

/// How long a closing end waits for its peer: for the peer's close frame
/// after sending its own, or, after a failure, for the peer to stop sending.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// The read buffer of each connection. tungstenite's default is much larger
/// and zero-filled on every read: every idle connection would pay for it in
/// memory, and every message in work.
const READ_BUFFER: usize = 8 * 1024;

/// The protocol settings of every connection, both sides.
pub(super) fn config(max_message_size: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        // Checked on each frame's header and as the fragments of a message
        // add up: a message over the limit is refused before it is buffered.
        .max_frame_size(Some(max_message_size))
        .max_message_size(Some(max_message_size))
        .read_buffer_size(READ_BUFFER)
}

/// Opens the engine's connection over `ws`: returns its handle (the last
/// clone dropped closes the connection) and the future that drives it and
/// then ends it with the closing handshake, to be spawned.
pub(super) fn open<S>(
    ws: WebSocketStream<S>,
    setup: Setup,
) -> (Connection, impl Future<Output = ()> + Send + use<S>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sink, stream) = ws.split();
    let ending = Arc::new(Ending {
        failure: Mutex::new(None),
        halves: Mutex::new((None, None)),
    });
    let reader = WsReader {
        stream: Some(stream),
        ending: ending.clone(),
    };
    let writer = WsWriter {
        sink: Some(sink),
        ending: ending.clone(),
    };
    let (connection, driver) = connection::open(reader, writer, ViaWriter, setup, true);
    let session = async move {
        driver.await;
        ending.finish().await;
    };
    (connection, session)
}

/// What the reader, the writer and the final close share.
struct Ending<S> {
    /// Why reading failed, when the peer broke the protocol or a limit.
    failure: Mutex<Option<(CloseCode, &'static str)>>,
    /// The two halves, handed back as the engine drops its reader and writer.
    halves: Mutex<Halves<S>>,
}

type Halves<S> = (
    Option<SplitStream<WebSocketStream<S>>>,
    Option<SplitSink<WebSocketStream<S>, Message>>,
);

impl<S> Ending<S> {
    /// The close frame this end sends.
    fn frame(&self) -> CloseFrame {
        let (code, reason) = lock(&self.failure).unwrap_or((CloseCode::Normal, ""));
        CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        }
    }
}

impl<S> Ending<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    /// Completes the closing handshake once the engine has stopped: sends
    /// the close frame unless one went out already, flushes what tungstenite
    /// still holds (the echo of the peer's close frame), and waits for the
    /// peer's close frame. After a failure, stops writing and reads until the
    /// peer closes, so that what it has not read yet does not make the
    /// connection reset before the close frame reaches it.
    async fn finish(&self) {
        let (stream, sink) = std::mem::take(&mut *lock(&self.halves));
        let (Some(stream), Some(sink)) = (stream, sink) else {
            return;
        };
        let Ok(mut ws) = stream.reunite(sink) else {
            return;
        };
        let failed = lock(&self.failure).is_some();
        let closing = async {
            // tungstenite refuses a second close frame; that error is expected.
            let _ = ws.send(Message::Close(Some(self.frame()))).await;
            let _ = ws.flush().await;
            if failed {
                linger(ws.get_mut()).await;
            } else {
                // Ends when the server, having echoed the close frame, ends
                // the connection.
                while let Some(Ok(_)) = ws.next().await {}
            }
        };
        let _ = tokio::time::timeout(CLOSE_WAIT, closing).await;
    }
}

/// Ends the sending side, then reads and discards until the peer closes.
async fn linger<S: AsyncRead + AsyncWrite + Unpin>(io: &mut S) {
    let _ = io.shutdown().await;
    let mut discard = vec![0; READ_BUFFER];
    while let Ok(1..) = io.read(&mut discard).await {}
}

/// The close code for a failed read, when the peer is still there to get one.
fn close_code(err: &WsError) -> Option<(CloseCode, &'static str)> {
    match err {
        WsError::Capacity(_) => Some((CloseCode::Size, "message too big")),
        WsError::Utf8(_) => Some((CloseCode::Invalid, "text is not UTF-8")),
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        WsError::Protocol(_) => Some((CloseCode::Protocol, "protocol error")),
        _ => None,
    }
}

fn into_io(err: WsError) -> io::Error {
    match err {
        WsError::Io(err) => err,
        WsError::ConnectionClosed | WsError::AlreadyClosed => {
            io::Error::new(io::ErrorKind::NotConnected, err)
        }
        other => io::Error::other(other),
    }
}

/// The engine's reader: one JSON-RPC message per data frame.
struct WsReader<S> {
    stream: Option<SplitStream<WebSocketStream<S>>>,
    ending: Arc<Ending<S>>,
}

impl<S> Drop for WsReader<S> {
    fn drop(&mut self) {
        lock(&self.ending.halves).0 = self.stream.take();
    }
}

impl<S> MessageReader for WsReader<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    /// Cancel-safe: `next()` on the stream is, and nothing is held between
    /// two of its calls.
    async fn read_message(&mut self) -> io::Result<Inbound> {
        let Some(stream) = self.stream.as_mut() else {
            return Ok(Inbound::Closed);
        };
        loop {
            let message = match stream.next().await {
                Some(Ok(message)) => message,
                None => return Ok(Inbound::Closed),
                Some(Err(err)) => {
                    *lock(&self.ending.failure) = close_code(&err);
                    return Err(into_io(err));
                }
            };
            match message {
                Message::Text(text) => return Ok(Inbound::Message(Bytes::from(text))),
                // JSON in a binary frame is served too; invalid JSON (or
                // UTF-8) gets -32700, as in a text frame.
                Message::Binary(data) => return Ok(Inbound::Message(data)),
                Message::Close(_) => {
                    // tungstenite has queued the echo; reading again sends
                    // it now rather than after the requests in flight.
                    let _ = stream.next().now_or_never();
                    return Ok(Inbound::Closed);
                }
                // tungstenite queues the pong; the next read sends it.
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            }
        }
    }
}

/// The engine's writer: one text frame per message.
struct WsWriter<S> {
    sink: Option<SplitSink<WebSocketStream<S>, Message>>,
    ending: Arc<Ending<S>>,
}

impl<S> Drop for WsWriter<S> {
    fn drop(&mut self) {
        lock(&self.ending.halves).1 = self.sink.take();
    }
}

impl<S> WsWriter<S> {
    fn sink(&mut self) -> io::Result<&mut SplitSink<WebSocketStream<S>, Message>> {
        self.sink
            .as_mut()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))
    }
}

impl<S> MessageWriter for WsWriter<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        self.sink()?
            .feed(Message::text(message))
            .await
            .map_err(into_io)
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.sink()?.flush().await.map_err(into_io)
    }

    async fn close(&mut self) -> io::Result<()> {
        let frame = self.ending.frame();
        self.sink()?
            .send(Message::Close(Some(frame)))
            .await
            .map_err(into_io)
    }
}
