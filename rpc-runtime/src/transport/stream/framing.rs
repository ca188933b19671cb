//! Message framing on byte streams: newline-delimited JSON and `Content-Length` headers.
//!
//! Readers keep their buffer in `self`, so a read that is cancelled (by a
//! timeout or a shutdown) loses nothing. A frame over the size limit is
//! skipped as it streams past, without ever being held whole.

use std::io;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};

use crate::transport::{Inbound, MessageReader, MessageWriter, Serialized};

/// How messages are delimited on a byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Framing {
    /// One message per line, newline-terminated (MCP's stdio transport, and
    /// the usual choice on TCP). A trailing `\r` is ignored; blank lines are skipped.
    #[default]
    Lines,
    /// Each message after a `Content-Length: <bytes>` header block (the LSP
    /// base protocol). Header names are case-insensitive; `Content-Type` and
    /// other headers are tolerated and ignored.
    ContentLength,
}

/// The most bytes a `Content-Length` header block may take.
const MAX_HEADER_BLOCK: usize = 8 * 1024;
/// How much to read at a time.
const READ_CHUNK: usize = 8 * 1024;

/// Reads framed messages from a byte stream.
///
/// ```
/// use typed_rpc::transport::stream::{FramedReader, Framing};
/// use typed_rpc::transport::{Inbound, MessageReader};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let bytes: &[u8] = b"Content-Length: 2\r\n\r\n{}Content-Length: 9\r\n\r\n[1,2,3,4]";
/// let mut reader = FramedReader::new(bytes, Framing::ContentLength, 4);
/// assert!(matches!(reader.read_message().await.unwrap(), Inbound::Message(m) if m == "{}"));
/// // Over the 4-byte limit: skipped as it streams past, never buffered.
/// assert!(matches!(reader.read_message().await.unwrap(), Inbound::TooLarge));
/// assert!(matches!(reader.read_message().await.unwrap(), Inbound::Closed));
/// # });
/// ```
#[derive(Debug)]
pub struct FramedReader<R> {
    inner: R,
    framing: Framing,
    max_message_size: usize,
    buf: BytesMut,
    /// Lines: the rest of an oversized line is being thrown away.
    skip_line: bool,
    /// `Content-Length`: bytes of an oversized body still to be thrown away.
    skip_bytes: usize,
    /// Where the search for a newline (or the blank line ending a header
    /// block) resumes, so a long line or header is scanned once.
    scanned: usize,
}

impl<R: AsyncRead + Unpin + Send + 'static> FramedReader<R> {
    /// Reads messages framed by `framing`, refusing any over `max_message_size` bytes.
    pub fn new(inner: R, framing: Framing, max_message_size: usize) -> Self {
        FramedReader {
            inner,
            framing,
            max_message_size,
            buf: BytesMut::with_capacity(READ_CHUNK),
            skip_line: false,
            skip_bytes: 0,
            scanned: 0,
        }
    }

    /// Reads more bytes into the buffer; `false` at end of stream.
    async fn fill(&mut self) -> io::Result<bool> {
        self.buf.reserve(READ_CHUNK);
        Ok(self.inner.read_buf(&mut self.buf).await? > 0)
    }

    /// The next frame from what is buffered, if a whole one is there.
    fn decode(&mut self) -> io::Result<Option<Inbound>> {
        match self.framing {
            Framing::Lines => Ok(self.decode_line()),
            Framing::ContentLength => self.decode_content_length(),
        }
    }

    fn decode_line(&mut self) -> Option<Inbound> {
        loop {
            let Some(offset) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') else {
                self.scanned = self.buf.len();
                // A `\r` at the end may be the one before the newline, which
                // is not part of the line: a line of exactly the limit is still
                // accepted however the read that ends it is split.
                let pending_cr = usize::from(self.buf.last() == Some(&b'\r'));
                if self.skip_line {
                    self.discard_buffered();
                } else if self.buf.len() > self.max_message_size.saturating_add(pending_cr) {
                    self.skip_line = true;
                    self.discard_buffered();
                    return Some(Inbound::TooLarge);
                }
                return None;
            };
            let mut line = self.buf.split_to(self.scanned + offset + 1);
            self.scanned = 0;
            if std::mem::take(&mut self.skip_line) {
                continue;
            }
            line.truncate(line.len() - 1);
            if line.last() == Some(&b'\r') {
                line.truncate(line.len() - 1);
            }
            // The length first: an unfinished line over the limit is refused
            // before it is known to be blank, so a whole one must be too.
            if line.len() > self.max_message_size {
                return Some(Inbound::TooLarge);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(Inbound::Message(line.freeze()));
        }
    }

    fn discard_buffered(&mut self) {
        self.buf.clear();
        self.scanned = 0;
    }

    fn decode_content_length(&mut self) -> io::Result<Option<Inbound>> {
        if self.skip_bytes > 0 {
            let now = self.skip_bytes.min(self.buf.len());
            self.buf.advance(now);
            self.skip_bytes -= now;
            if self.skip_bytes > 0 {
                return Ok(None);
            }
        }
        // The block must end within the limit wherever the reads split it, so
        // only that much is searched.
        let window = &self.buf[..self.buf.len().min(MAX_HEADER_BLOCK)];
        let Some((header_len, length)) = parse_headers(window, self.scanned)? else {
            if self.buf.len() >= MAX_HEADER_BLOCK {
                return Err(invalid("header block too long"));
            }
            // Resume the search where it stopped, less what may be the start
            // of the blank line: a header trickling in is scanned once.
            self.scanned = window.len().saturating_sub(3);
            return Ok(None);
        };
        self.scanned = 0;
        if length > self.max_message_size {
            self.buf.advance(header_len);
            let now = length.min(self.buf.len());
            self.buf.advance(now);
            self.skip_bytes = length - now;
            return Ok(Some(Inbound::TooLarge));
        }
        // Wait for the body without reserving room for it: the buffer grows
        // with the bytes that come, so a header alone cannot make the reader
        // allocate the declared length.
        if self.buf.len() < header_len.saturating_add(length) {
            return Ok(None);
        }
        self.buf.advance(header_len);
        Ok(Some(Inbound::Message(self.buf.split_to(length).freeze())))
    }
}

/// Parses a complete header block at the start of `buf`: its length and the
/// declared content length. `None` while the block is incomplete. The blank
/// line that ends it is searched for from `from` on.
fn parse_headers(buf: &[u8], from: usize) -> io::Result<Option<(usize, usize)>> {
    let Some(end) = find(&buf[from..], b"\r\n\r\n").map(|at| from + at) else {
        return Ok(None);
    };
    let block =
        std::str::from_utf8(&buf[..end]).map_err(|_| invalid("header block is not UTF-8"))?;
    let mut length = None;
    for line in block.split("\r\n") {
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid("header line without `:`"))?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value
                .trim()
                .parse()
                .map_err(|_| invalid("Content-Length is not a number"))?;
            length = Some(value);
        }
    }
    let length = length.ok_or_else(|| invalid("missing Content-Length header"))?;
    Ok(Some((end + 4, length)))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

impl<R: AsyncRead + Unpin + Send + 'static> MessageReader for FramedReader<R> {
    async fn read_message(&mut self) -> io::Result<Inbound> {
        loop {
            if let Some(inbound) = self.decode()? {
                return Ok(inbound);
            }
            if !self.fill().await? {
                return Ok(self.last_frame());
            }
        }
    }
}

impl<R> FramedReader<R> {
    /// At end of stream: a last line without its newline is still a message.
    fn last_frame(&mut self) -> Inbound {
        let rest = self.buf.split();
        self.scanned = 0;
        let skipped = std::mem::take(&mut self.skip_line);
        let text = rest.trim_ascii();
        if self.framing == Framing::Lines
            && !skipped
            && !text.is_empty()
            && text.len() <= self.max_message_size
        {
            return Inbound::Message(Bytes::copy_from_slice(text));
        }
        Inbound::Closed
    }
}

/// Writes framed messages to a byte stream, buffered until flushed.
#[derive(Debug)]
pub struct FramedWriter<W: AsyncWrite> {
    inner: BufWriter<W>,
    framing: Framing,
}

impl<W: AsyncWrite + Unpin + Send + 'static> FramedWriter<W> {
    /// Writes messages framed by `framing`.
    pub fn new(inner: W, framing: Framing) -> Self {
        FramedWriter {
            inner: BufWriter::new(inner),
            framing,
        }
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> MessageWriter for FramedWriter<W> {
    async fn write_message(&mut self, message: &str) -> io::Result<()> {
        self.write_bytes(message.as_bytes()).await
    }

    /// The bytes as they are: a byte stream carries no text type.
    async fn write_serialized(&mut self, messages: Serialized<'_>) -> io::Result<()> {
        for message in messages.iter() {
            self.write_bytes(message).await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().await
    }

    async fn close(&mut self) -> io::Result<()> {
        self.inner.flush().await?;
        self.inner.shutdown().await
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> FramedWriter<W> {
    async fn write_bytes(&mut self, message: &[u8]) -> io::Result<()> {
        match self.framing {
            Framing::Lines => {
                self.inner.write_all(message).await?;
                self.inner.write_all(b"\n").await
            }
            Framing::ContentLength => {
                let header = format!("Content-Length: {}\r\n\r\n", message.len());
                self.inner.write_all(header.as_bytes()).await?;
                self.inner.write_all(message).await
            }
        }
    }
}
