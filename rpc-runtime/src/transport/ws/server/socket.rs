//! The server's side of one WebSocket connection, on our own framing
//! (`ws/frame.rs`): the connection engine's reader and writer
//! over one socket, and the closing handshake once the engine is done.
//!
//! The reader and the writer share the socket and its buffers behind a
//! mutex taken only inside a poll, never across an await: both run in the
//! connection's one task, so it is never contended. Control frames the
//! reader must answer (a pong, the echo of a close) go out through the same
//! output buffer; the writer sends them with its next write, and the reader
//! sends them itself when the writer is not waiting on the socket, so that
//! each direction of the socket has one waker at a time. A reply that
//! finishes as its request is read goes out the same way when the writer
//! has nothing unsent ([`DirectReply`]): most replies never reach the
//! writer, which only flushes what the peer did not take at once.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::super::frame::{self, Opcode, Violation};
use crate::transport::connection::{
    self, Direct, DirectReply, Inbound, MessageReader, MessageWriter, Serialized, Setup,
};
use crate::transport::sync::lock;

/// How long a closing end waits for its peer: for the peer's close frame
/// after sending its own, or, after a failure, for the peer to stop sending.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// How much the input buffer has room for at each read. Unlike
/// tungstenite's buffer it is not zero-filled before a read.
const READ_CHUNK: usize = 8 * 1024;

/// The capacity each buffer keeps between messages; a larger one, grown for
/// a large message, is given back once the message is through.
const KEPT_BUFFER: usize = 16 * 1024;

/// The most pong bytes waiting to be sent at once. A peer that floods pings
/// without reading the pongs gets no more of them until it reads: memory
/// stays bounded, and a peer that reads gets an answer to every ping.
const MAX_UNSENT_PONGS: usize = 4 * 1024;

/// Serves one upgraded connection: `io` is the socket, `read_ahead` what
/// the HTTP server read past the handshake, `shutdown` the server's graceful
/// shutdown (`setup.stopping` may also be cancelled to make room under
/// pressure). Resolves once the connection has closed.
pub(super) async fn serve<S>(
    io: S,
    read_ahead: &[u8],
    setup: Setup,
    shutdown: CancellationToken,
    max_message_size: usize,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let stopping = Stopping {
        shutdown,
        stop: setup.stopping.clone(),
    };
    let socket = Arc::new(Mutex::new(Socket::new(io, read_ahead, max_message_size)));
    let reader = WsReader(socket.clone());
    let writer = WsWriter {
        socket: socket.clone(),
        stopping: stopping.clone(),
    };
    let direct = WsDirect(socket.clone());
    let (_, driver) = connection::open(reader, writer, direct, setup, false);
    driver.await;
    let closing = poll_fn(|cx| lock(&socket).poll_finish(cx, &stopping));
    let _ = tokio::time::timeout(CLOSE_WAIT, closing).await;
}

/// Why this end may close first: the server shutting down, or `stop`
/// alone, the listener making room for a new client.
#[derive(Clone, Default)]
struct Stopping {
    shutdown: CancellationToken,
    stop: CancellationToken,
}

/// The socket and the state of both directions.
struct Socket<S> {
    io: S,
    /// Bytes read and not yet taken as frames.
    input: BytesMut,
    /// A fragmented message so far.
    partial: Option<Partial>,
    max_message_size: usize,
    /// Frames to send, from `written` on.
    output: Vec<u8>,
    written: usize,
    /// How many bytes of pongs `output` holds.
    unsent_pongs: usize,
    /// The writer waits for the socket to take `output`: it will send
    /// whatever the reader adds.
    writer_waiting: bool,
    /// The last flush has not finished: `output` is sent but may still sit
    /// in a layer below (a TLS stream under `HttpService`).
    unflushed: bool,
    close_sent: bool,
    close_received: bool,
    /// The peer has ended its side of the connection.
    eof: bool,
    /// Why reading failed, when the peer broke the protocol or a limit.
    failure: Option<Violation>,
}

/// A message whose fragments are still arriving.
struct Partial {
    text: bool,
    bytes: Vec<u8>,
    /// How much of a text message is known to be UTF-8.
    checked: usize,
}

impl Partial {
    /// Checks the text that arrived since the last check, as it arrives:
    /// invalid UTF-8 fails the message at once, and only a character cut
    /// by the end of the fragment waits for the next one.
    fn check(&mut self) -> Result<(), Violation> {
        if !self.text {
            return Ok(());
        }
        match std::str::from_utf8(&self.bytes[self.checked..]) {
            Ok(_) => self.checked = self.bytes.len(),
            Err(err) if err.error_len().is_none() => self.checked += err.valid_up_to(),
            Err(_) => return Err(Violation::NOT_UTF8),
        }
        Ok(())
    }
}

/// What one frame amounted to.
enum Step {
    /// A whole message, or the peer's close.
    Inbound(Inbound),
    /// A control frame, answered; or a fragment.
    Consumed,
    /// The frame is not all here: at least this many bytes must be.
    Incomplete(usize),
}

impl<S> Socket<S> {
    fn new(io: S, read_ahead: &[u8], max_message_size: usize) -> Self {
        Socket {
            io,
            input: BytesMut::from(read_ahead),
            partial: None,
            max_message_size,
            output: Vec::new(),
            written: 0,
            unsent_pongs: 0,
            writer_waiting: false,
            unflushed: false,
            close_sent: false,
            close_received: false,
            eof: false,
            failure: None,
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Socket<S> {
    /// The next message from the peer (see [`MessageReader`]).
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Inbound>> {
        if self.close_received || self.eof {
            return Poll::Ready(Ok(Inbound::Closed));
        }
        loop {
            if let Poll::Ready(Err(err)) = self.poll_send_queued(cx) {
                return Poll::Ready(Err(err));
            }
            match self.next_frame() {
                Ok(Step::Inbound(Inbound::Closed)) => {
                    // The echo goes out now, not after the requests in flight.
                    let _ = self.poll_send_queued(cx);
                    return Poll::Ready(Ok(Inbound::Closed));
                }
                Ok(Step::Inbound(inbound)) => return Poll::Ready(Ok(inbound)),
                Ok(Step::Consumed) => {}
                Ok(Step::Incomplete(needed)) => {
                    if ready!(self.poll_fill(cx, needed))? == 0 {
                        self.eof = true;
                        // Gone without a close frame: cleanly only between messages.
                        if self.input.is_empty() && self.partial.is_none() {
                            return Poll::Ready(Ok(Inbound::Closed));
                        }
                        return Poll::Ready(Err(io::ErrorKind::UnexpectedEof.into()));
                    }
                }
                Err(violation) => {
                    self.failure = Some(violation);
                    let error = io::Error::new(io::ErrorKind::InvalidData, violation.reason);
                    return Poll::Ready(Err(error));
                }
            }
        }
    }

    /// Takes the frame at the start of the input, if it is all there.
    fn next_frame(&mut self) -> Result<Step, Violation> {
        let room = match &self.partial {
            Some(partial) => self.max_message_size - partial.bytes.len(),
            None => self.max_message_size,
        };
        let Some(header) = frame::header(&self.input, room)? else {
            // At most 14 bytes: any read brings what is missing or more.
            return Ok(Step::Incomplete(self.input.len() + 1));
        };
        let end = header.size + header.len;
        if self.input.len() < end {
            return Ok(Step::Incomplete(end));
        }
        let payload = &mut self.input[header.size..end];
        frame::unmask(payload, header.mask);
        let step = match header.opcode {
            Opcode::Text | Opcode::Binary if self.partial.is_some() => {
                return Err(Violation::protocol("message started inside another"));
            }
            Opcode::Text | Opcode::Binary if header.fin => {
                if header.opcode == Opcode::Text {
                    utf8(payload)?;
                }
                Step::Inbound(Inbound::Message(Bytes::copy_from_slice(payload)))
            }
            Opcode::Text | Opcode::Binary => {
                let mut partial = Partial {
                    text: header.opcode == Opcode::Text,
                    bytes: payload.to_vec(),
                    checked: 0,
                };
                partial.check()?;
                self.partial = Some(partial);
                Step::Consumed
            }
            Opcode::Continuation => {
                let Some(partial) = self.partial.as_mut() else {
                    return Err(Violation::protocol("continuation outside a message"));
                };
                partial.bytes.extend_from_slice(payload);
                partial.check()?;
                if !header.fin {
                    Step::Consumed
                } else {
                    let whole = self.partial.take().expect("a message in progress");
                    if whole.checked < whole.bytes.len() {
                        // It ends inside a character.
                        return Err(Violation::NOT_UTF8);
                    }
                    Step::Inbound(Inbound::Message(Bytes::from(whole.bytes)))
                }
            }
            Opcode::Ping => {
                if !self.close_sent && self.unsent_pongs < MAX_UNSENT_PONGS {
                    self.unsent_pongs += payload.len() + 2;
                    frame::write(&mut self.output, Opcode::Pong, payload);
                }
                Step::Consumed
            }
            Opcode::Pong => Step::Consumed,
            Opcode::Close => {
                frame::check_close(payload)?;
                self.close_received = true;
                // The echo carries the peer's code and reason, and goes out
                // before the replies still to come (which are then dropped).
                if !self.close_sent {
                    self.close_sent = true;
                    frame::write(&mut self.output, Opcode::Close, payload);
                }
                Step::Inbound(Inbound::Closed)
            }
        };
        self.input.advance(end);
        if self.input.is_empty() && end > KEPT_BUFFER {
            self.input = BytesMut::new();
        }
        Ok(step)
    }

    /// Reads more input, with room for at least `needed` bytes in all.
    fn poll_fill(&mut self, cx: &mut Context<'_>, needed: usize) -> Poll<io::Result<usize>> {
        self.input
            .reserve(needed.saturating_sub(self.input.len()).max(READ_CHUNK));
        tokio_util::io::poll_read_buf(Pin::new(&mut self.io), cx, &mut self.input)
    }

    /// Sends the output buffer.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.output.len() {
            let io = Pin::new(&mut self.io);
            match ready!(io.poll_write(cx, &self.output[self.written..]))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                n => self.written += n,
            }
        }
        self.written = 0;
        self.unsent_pongs = 0;
        self.output.clear();
        self.output.shrink_to(KEPT_BUFFER);
        let flushed = Pin::new(&mut self.io).poll_flush(cx);
        self.unflushed = flushed.is_pending();
        flushed
    }

    /// Whether everything queued has gone out.
    fn all_sent(&self) -> bool {
        self.written == self.output.len() && !self.unflushed
    }

    /// Sends what the reader queued (a pong, a close echo, a reply) if the
    /// socket takes it, else the socket wakes the reader when it can; left
    /// to the writer when it waits on the socket, as it sends all of
    /// `output`.
    fn poll_send_queued(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.writer_waiting || self.all_sent() {
            return Poll::Ready(Ok(()));
        }
        self.poll_send(cx)
    }

    /// Sends a reply for the reader, as it sends a pong (see
    /// [`DirectReply`]): only when nothing is unsent, so that the reply
    /// overtakes nothing.
    fn try_reply(&mut self, cx: &mut Context<'_>, reply: &str) -> Direct {
        if self.close_sent || self.writer_waiting || !self.all_sent() {
            return Direct::Refused;
        }
        frame::write(&mut self.output, Opcode::Text, reply.as_bytes());
        match self.poll_send(cx) {
            // A failure shows at the next read or write.
            Poll::Ready(_) => Direct::Sent,
            Poll::Pending => Direct::Unsent,
        }
    }

    /// The writer's flush.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let sent = self.poll_send(cx);
        self.writer_waiting = sent.is_pending();
        sent
    }

    /// Queues this end's close frame, unless one went out already.
    fn queue_close(&mut self, stopping: &Stopping) {
        if self.close_sent {
            return;
        }
        self.close_sent = true;
        let (code, reason) = match self.failure {
            Some(violation) => (violation.code, violation.reason),
            None if stopping.shutdown.is_cancelled() => (1001, "server shutting down"),
            // 1013, Try Again Later: closed for want of room, not for
            // anything the peer did; a new connection may well be served.
            None if stopping.stop.is_cancelled() => (1013, "server full, idle connection closed"),
            None => (1000, ""),
        };
        frame::write(
            &mut self.output,
            Opcode::Close,
            &frame::close_payload(code, reason),
        );
    }

    /// Completes the closing handshake once the engine has stopped: sends
    /// the close frame unless one went out already, then waits for the
    /// peer's close frame. After a failure, stops writing and reads until
    /// the peer closes, so that what it has not read yet does not make the
    /// connection reset before the close frame reaches it.
    fn poll_finish(&mut self, cx: &mut Context<'_>, stopping: &Stopping) -> Poll<io::Result<()>> {
        self.queue_close(stopping);
        ready!(self.poll_send(cx))?;
        if self.failure.is_some() {
            ready!(Pin::new(&mut self.io).poll_shutdown(cx))?;
            return self.poll_discard(cx);
        }
        // Ends with the peer's close frame, or when the peer ends the
        // connection or breaks the protocol.
        while !self.close_received && !self.eof && self.failure.is_none() {
            match self.next_frame() {
                Ok(Step::Incomplete(needed)) => {
                    if ready!(self.poll_fill(cx, needed))? == 0 {
                        self.eof = true;
                    }
                }
                Ok(_) => {}
                Err(violation) => self.failure = Some(violation),
            }
        }
        Poll::Ready(Ok(()))
    }

    /// Reads and drops everything until the peer ends the connection.
    fn poll_discard(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            self.input.clear();
            if ready!(self.poll_fill(cx, READ_CHUNK))? == 0 {
                return Poll::Ready(Ok(()));
            }
        }
    }
}

/// Checks that a text message is UTF-8. JSON-RPC text is nearly always
/// ASCII, which `is_ascii` checks a word at a time with little set-up;
/// `from_utf8` costs about four times as much on a short message.
fn utf8(text: &[u8]) -> Result<(), Violation> {
    if text.is_ascii() || std::str::from_utf8(text).is_ok() {
        Ok(())
    } else {
        Err(Violation::NOT_UTF8)
    }
}

/// The engine's reader: one JSON-RPC message per data message.
struct WsReader<S>(Arc<Mutex<Socket<S>>>);

impl<S> MessageReader for WsReader<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    /// Cancel-safe: everything read is kept in the socket's buffers.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Inbound>> + Send {
        poll_fn(|cx| lock(&self.0).poll_message(cx))
    }
}

/// The reader's way to send replies itself.
struct WsDirect<S>(Arc<Mutex<Socket<S>>>);

impl<S> DirectReply for WsDirect<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    fn try_reply(&mut self, cx: &mut Context<'_>, reply: &str) -> Direct {
        lock(&self.0).try_reply(cx, reply)
    }
}

/// The engine's writer: one text frame per message.
struct WsWriter<S> {
    socket: Arc<Mutex<Socket<S>>>,
    stopping: Stopping,
}

impl<S> MessageWriter for WsWriter<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        let mut socket = lock(&self.socket);
        if socket.close_sent {
            return Err(io::ErrorKind::NotConnected.into());
        }
        frame::write(&mut socket.output, Opcode::Text, message.as_bytes());
        Ok(())
    }

    /// A text frame of each message's bytes as they are (UTF-8 by
    /// construction), all under one lock of the socket.
    async fn write_serialized(&mut self, messages: Serialized<'_>) -> io::Result<()> {
        let mut socket = lock(&self.socket);
        if socket.close_sent {
            return Err(io::ErrorKind::NotConnected.into());
        }
        for message in messages.iter() {
            frame::write(&mut socket.output, Opcode::Text, message);
        }
        Ok(())
    }

    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        poll_fn(|cx| lock(&self.socket).poll_flush(cx))
    }

    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send {
        lock(&self.socket).queue_close(&self.stopping);
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn a_peer_that_pings_without_reading_gets_bounded_pongs() {
        let (server_end, mut peer) = tokio::io::duplex(1024);
        let mut socket = Socket::new(server_end, &[], 1 << 20);
        let mut ping = vec![0x89, 0x80 | 100, 0, 0, 0, 0];
        ping.extend_from_slice(&[b'p'; 100]);
        let pings = 1000;
        let flood = async {
            for _ in 0..pings {
                peer.write_all(&ping).await.unwrap();
            }
        };
        tokio::select! {
            () = flood => {}
            read = poll_fn(|cx| socket.poll_message(cx)) => panic!("not a message: {read:?}"),
        }
        // Every ping was read, and the pongs held stayed under the bound.
        let unsent = socket.output.len() - socket.written;
        assert!(
            unsent <= MAX_UNSENT_PONGS + 102,
            "{unsent} bytes of pongs held"
        );

        // The peer reads again: the pongs held go out, each one whole.
        let mut received = Vec::new();
        let mut buffer = [0; 4096];
        while !socket.output.is_empty() {
            tokio::select! {
                read = poll_fn(|cx| socket.poll_message(cx)) => panic!("not a message: {read:?}"),
                read = peer.read(&mut buffer) => received.extend_from_slice(&buffer[..read.unwrap()]),
            }
        }
        drop(socket);
        peer.read_to_end(&mut received).await.unwrap();
        assert_eq!(received.len() % 102, 0);
        let pong = |frame: &[u8]| frame[..2] == [0x8A, 100] && frame[2..] == [b'p'; 100];
        assert!(received.chunks(102).all(pong));
        let answered = received.len() / 102;
        assert!(answered > 0 && answered < pings, "{answered} pongs");
    }

    #[tokio::test]
    async fn a_reply_sent_by_the_reader_overtakes_nothing_and_its_rest_goes_out_later() {
        let (server_end, mut peer) = tokio::io::duplex(64);
        let mut socket = Socket::new(server_end, &[], 1 << 20);
        let first = "a".repeat(100);
        // The pipe takes 64 of the frame's 102 bytes: the rest waits in the
        // socket (for the writer's flush, in the engine), and a second reply
        // is left to the writer, behind it.
        assert!(matches!(
            try_reply(&mut socket, &first).await,
            Direct::Unsent
        ));
        assert!(matches!(try_reply(&mut socket, "b").await, Direct::Refused));

        let mut received = vec![0; 102];
        let reading = async {
            peer.read_exact(&mut received).await.unwrap();
        };
        // With no writer waiting, the reader sends the rest as it reads on.
        tokio::select! {
            () = reading => {}
            read = poll_fn(|cx| socket.poll_message(cx)) => panic!("not a message: {read:?}"),
        }
        assert_eq!(received[..2], [0x81, 100]);
        assert_eq!(received[2..], *first.as_bytes());
        assert!(socket.all_sent());

        // Nothing is unsent now: the next reply goes out at once.
        assert!(matches!(try_reply(&mut socket, "c").await, Direct::Sent));
        let mut next = [0; 3];
        peer.read_exact(&mut next).await.unwrap();
        assert_eq!(next, [0x81, 1, b'c']);

        // A closing socket sends no more replies.
        socket.queue_close(&Stopping::default());
        poll_fn(|cx| socket.poll_send(cx)).await.unwrap();
        assert!(matches!(try_reply(&mut socket, "d").await, Direct::Refused));
    }

    async fn try_reply<S: AsyncRead + AsyncWrite + Unpin>(
        socket: &mut Socket<S>,
        reply: &str,
    ) -> Direct {
        poll_fn(|cx| Poll::Ready(socket.try_reply(cx, reply))).await
    }
}
