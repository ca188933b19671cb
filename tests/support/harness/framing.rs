//! Framed streams under hostile splitting: a reader that hands a stream out
//! in pieces of any size (sometimes making the caller wait, sometimes with the
//! caller giving up on a read and starting another), a reference model of
//! both framings, and generated streams of frames with the frames they hold.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, ReadBuf};
use typed_rpc::transport::stream::{FramedReader, Framing};
use typed_rpc::transport::{Inbound, MessageReader};

use super::Gen;

/// The most bytes a `Content-Length` header block may take (the reader's limit).
pub const MAX_HEADER_BLOCK: usize = 8 * 1024;

/// Part of a stream: bytes, or one byte many times (so a long stream costs
/// no memory to describe).
#[derive(Debug, Clone)]
pub enum Piece {
    Bytes(Vec<u8>),
    Repeat(u8, usize),
}

impl Piece {
    pub fn len(&self) -> usize {
        match self {
            Piece::Bytes(bytes) => bytes.len(),
            Piece::Repeat(_, n) => *n,
        }
    }
}

/// Whether `bytes` are exactly the concatenation of `pieces`.
pub fn same_bytes(bytes: &[u8], pieces: &[Piece]) -> bool {
    let mut rest = bytes;
    for piece in pieces {
        let n = piece.len();
        if rest.len() < n {
            return false;
        }
        let (head, tail) = rest.split_at(n);
        let same = match piece {
            Piece::Bytes(b) => head == b.as_slice(),
            Piece::Repeat(byte, _) => head.iter().all(|b| b == byte),
        };
        if !same {
            return false;
        }
        rest = tail;
    }
    rest.is_empty()
}

/// The stream's bytes, for streams small enough to hold.
pub fn concat(pieces: &[Piece]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Bytes(b) => out.extend_from_slice(b),
            Piece::Repeat(byte, n) => out.extend(std::iter::repeat_n(*byte, *n)),
        }
    }
    out
}

/// A stream read in pieces: each read gets at most the next of `sizes`
/// (cycled) bytes, and a read is first refused with `Pending` (waking at
/// once) wherever `pending` (cycled) says so.
pub struct Split {
    pieces: Vec<Piece>,
    piece: usize,
    offset: usize,
    sizes: Vec<usize>,
    size_at: usize,
    pending: Vec<bool>,
    pending_at: usize,
    /// The last read was refused: the next one goes through, so the stream
    /// always makes progress.
    refused: bool,
    /// How many times the reader asked for bytes.
    pub reads: usize,
    /// How many reads returned `Pending`.
    pub pendings: usize,
}

impl Split {
    /// `sizes` of 0 are read as 1 (a read of 0 bytes means the end).
    pub fn new(pieces: Vec<Piece>, sizes: Vec<usize>, pending: Vec<bool>) -> Self {
        let sizes = if sizes.is_empty() {
            vec![usize::MAX]
        } else {
            sizes
        };
        Split {
            pieces,
            piece: 0,
            offset: 0,
            sizes: sizes.into_iter().map(|s| s.max(1)).collect(),
            size_at: 0,
            pending,
            pending_at: 0,
            refused: false,
            reads: 0,
            pendings: 0,
        }
    }

    /// The whole stream in reads as large as the reader takes.
    pub fn whole(pieces: Vec<Piece>) -> Self {
        Split::new(pieces, Vec::new(), Vec::new())
    }

    pub fn len(&self) -> usize {
        self.pieces.iter().map(Piece::len).sum()
    }
}

impl AsyncRead for Split {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.reads += 1;
        if !this.pending.is_empty() && !std::mem::take(&mut this.refused) {
            let pend = this.pending[this.pending_at % this.pending.len()];
            this.pending_at += 1;
            if pend {
                this.refused = true;
                this.pendings += 1;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
        }
        let mut want = this.sizes[this.size_at % this.sizes.len()].min(buf.remaining());
        this.size_at += 1;
        while want > 0 && this.piece < this.pieces.len() {
            let piece = &this.pieces[this.piece];
            let n = (piece.len() - this.offset).min(want);
            match piece {
                Piece::Bytes(bytes) => buf.put_slice(&bytes[this.offset..this.offset + n]),
                Piece::Repeat(byte, _) => {
                    const BLOCK: [u8; 4096] = [0; 4096];
                    let mut left = n;
                    while left > 0 {
                        let k = left.min(BLOCK.len());
                        let start = buf.filled().len();
                        buf.put_slice(&BLOCK[..k]);
                        buf.filled_mut()[start..].fill(*byte);
                        left -= k;
                    }
                }
            }
            this.offset += n;
            want -= n;
            if this.offset == piece.len() {
                this.piece += 1;
                this.offset = 0;
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// What a reader yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Message(Vec<u8>),
    TooLarge,
    /// A read failed; the stream is not read further.
    Error,
}

/// What a reader yielded, as handed to a callback before it is dropped.
#[derive(Debug)]
pub enum Seen<'a> {
    Message(&'a [u8]),
    TooLarge,
    Error(io::Error),
}

/// Reads `stream` to its end through a [`FramedReader`], handing each thing
/// read to `each`. Wherever a read is pending, `cancels` (cycled) says
/// whether to drop that read and start a new one: nothing may be lost.
///
/// Fails on a hang: more polls or reads than the stream can need.
pub fn read_stream(
    stream: Split,
    framing: Framing,
    max: usize,
    cancels: &[bool],
    mut each: impl FnMut(Seen<'_>),
) -> Result<(), String> {
    let budget = stream.len() + 64;
    let mut reader = FramedReader::new(stream, framing, max);
    let mut cx = Context::from_waker(Waker::noop());
    let mut cancel_at = 0;
    let mut polls = 0usize;
    let mut results = 0usize;
    loop {
        let inbound = 'read: loop {
            let mut read = Box::pin(reader.read_message());
            loop {
                polls += 1;
                if polls > 4 * budget + 4 * results {
                    return Err(format!("no progress after {polls} polls: a hang"));
                }
                match read.as_mut().poll(&mut cx) {
                    Poll::Ready(inbound) => break 'read inbound,
                    Poll::Pending => {
                        let cancel = !cancels.is_empty() && cancels[cancel_at % cancels.len()];
                        cancel_at += 1;
                        if cancel {
                            continue 'read;
                        }
                    }
                }
            }
        };
        results += 1;
        match inbound {
            Ok(Inbound::Message(bytes)) => each(Seen::Message(&bytes)),
            Ok(Inbound::TooLarge) => each(Seen::TooLarge),
            Ok(Inbound::Closed) => break,
            Err(err) => {
                each(Seen::Error(err));
                break;
            }
        }
        if results > budget {
            return Err(format!(
                "{results} results from a {budget}-byte stream: a loop"
            ));
        }
    }
    Ok(())
}

/// Everything read from `stream`, in order.
pub fn read_events(
    stream: Split,
    framing: Framing,
    max: usize,
    cancels: &[bool],
) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    read_stream(stream, framing, max, cancels, |seen| {
        events.push(match seen {
            Seen::Message(bytes) => Event::Message(bytes.to_vec()),
            Seen::TooLarge => Event::TooLarge,
            Seen::Error(_) => Event::Error,
        })
    })?;
    Ok(events)
}

// ---------------------------------------------------------------------------
// The reference model: what a whole stream holds, however it is split.

/// The frames `data` holds under `framing` with messages of at most `max` bytes.
pub fn reference(data: &[u8], framing: Framing, max: usize) -> Vec<Event> {
    match framing {
        Framing::Lines => reference_lines(data, max),
        Framing::ContentLength => reference_content_length(data, max),
    }
}

/// Lines: each ends at `\n`, less one `\r` before it. A line over `max` is
/// too large (blank or not); a blank one is skipped; a last line without
/// `\n` is a message too, trimmed of whitespace.
fn reference_lines(data: &[u8], max: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut lines = data.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > max {
            events.push(Event::TooLarge);
        } else if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else if last {
            events.push(Event::Message(line.trim_ascii().to_vec()));
        } else {
            events.push(Event::Message(line.to_vec()));
        }
    }
    events
}

/// `Content-Length`: a header block of at most [`MAX_HEADER_BLOCK`] bytes
/// ending in an empty line, then that many bytes. A malformed block ends the
/// stream with an error; a body over `max` is too large and skipped; an
/// incomplete frame at the end is dropped.
fn reference_content_length(data: &[u8], max: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let window = &rest[..rest.len().min(MAX_HEADER_BLOCK)];
        let Some(end) = window.windows(4).position(|w| w == b"\r\n\r\n") else {
            if rest.len() >= MAX_HEADER_BLOCK {
                events.push(Event::Error);
            }
            break;
        };
        let Some(length) = content_length(&rest[..end]) else {
            events.push(Event::Error);
            break;
        };
        rest = &rest[end + 4..];
        if length > max {
            events.push(Event::TooLarge);
            rest = &rest[length.min(rest.len())..];
            continue;
        }
        if rest.len() < length {
            break;
        }
        events.push(Event::Message(rest[..length].to_vec()));
        rest = &rest[length..];
    }
    events
}

/// The declared length of a header block; `None` if the block is malformed.
fn content_length(block: &[u8]) -> Option<usize> {
    let block = std::str::from_utf8(block).ok()?;
    let mut length = None;
    for line in block.split("\r\n") {
        let (name, value) = line.split_once(':')?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = Some(value.trim().parse().ok()?);
        }
    }
    length
}

// ---------------------------------------------------------------------------
// Generated streams of frames.

/// A stream written frame by frame, and what a reader must yield from it.
#[derive(Debug)]
pub struct Frames {
    pub framing: Framing,
    pub max: usize,
    pub pieces: Vec<Piece>,
    pub expected: Vec<Expected>,
    pub sizes: Vec<usize>,
    pub pending: Vec<bool>,
    pub cancels: Vec<bool>,
}

/// A frame the reader must yield.
#[derive(Debug)]
pub enum Expected {
    Message(Vec<Piece>),
    TooLarge,
}

impl Frames {
    /// Frames whose sizes stay below `limit` bytes each, so a run stays fast.
    pub fn generate(g: &mut impl Gen, limit: usize) -> Frames {
        let framing = if g.bool() {
            Framing::Lines
        } else {
            Framing::ContentLength
        };
        let max = match g.below(6) {
            0 => 1 + g.below(4),
            1 => 1 + g.below(64),
            2 => 1 + g.below(2000),
            3 => 8 * 1024,
            4 => 1 + g.below(limit.min(1 << 16)),
            _ => 1 + g.below(300),
        };
        let mut frames = Frames {
            framing,
            max,
            pieces: Vec::new(),
            expected: Vec::new(),
            sizes: Vec::new(),
            pending: Vec::new(),
            cancels: Vec::new(),
        };
        let count = g.below(8);
        for i in 0..count {
            match framing {
                Framing::Lines => frames.line(g, limit, i + 1 == count),
                Framing::ContentLength => frames.content_length(g, limit),
            }
        }
        let sizes = 1 + g.below(16);
        for _ in 0..sizes {
            let size = match g.below(6) {
                0 => 1,
                1 => 1 + g.below(8),
                2 => g.pick(&[4095, 4096, 8191, 8192, 8193, 65536, 1 << 20]),
                3 => max + g.below(3),
                _ => 1 + g.below(600),
            };
            frames.sizes.push(size);
        }
        // A long stream is read in reads of at least 1/2048 of it, so a run
        // stays fast; short ones are split anywhere.
        let floor = frames.pieces.iter().map(Piece::len).sum::<usize>() / 2048;
        frames.sizes.iter_mut().for_each(|s| *s = (*s).max(floor));
        frames.pending = (0..g.below(8)).map(|_| g.one_in(3)).collect();
        frames.cancels = (0..g.below(8)).map(|_| g.bool()).collect();
        frames
    }

    /// A size near the limit: well under it, just around it, over it, or
    /// as large as `limit` allows (far more than a reader may hold).
    fn size(g: &mut impl Gen, max: usize, limit: usize) -> usize {
        let n = match g.below(9) {
            0 => max.saturating_sub(1),
            1 => max,
            2 => max + 1,
            3 => max + 2,
            4 => max + g.below(3 * max + 1),
            5 if g.one_in(4) => limit,
            _ => g.below(max.min(64) + 1),
        };
        n.min(limit)
    }

    fn line(&mut self, g: &mut impl Gen, limit: usize, last: bool) {
        // Blank lines between frames are skipped, unless over the limit.
        if g.one_in(4) {
            let blank = g.pick(&[&b"\n"[..], b"\r\n", b"  \t\n", b" \r\n"]);
            let content = blank.len() - 1 - usize::from(blank.ends_with(b"\r\n"));
            if content > self.max {
                self.expected.push(Expected::TooLarge);
            }
            self.pieces.push(Piece::Bytes(blank.to_vec()));
        }
        // Content that neither starts nor ends with whitespace and holds no newline.
        let n = Frames::size(g, self.max, limit).max(1);
        let content = if n > 64 && g.bool() {
            vec![Piece::Repeat(g.pick(b"x{}\"\\"), n)]
        } else {
            let mut bytes: Vec<u8> = (0..n)
                .map(|_| match g.byte() {
                    b'\n' => b'n',
                    b => b,
                })
                .collect();
            for end in [0, n - 1] {
                if bytes[end].is_ascii_whitespace() {
                    bytes[end] = b'.';
                }
            }
            vec![Piece::Bytes(bytes)]
        };
        self.expected.push(if n > self.max {
            Expected::TooLarge
        } else {
            Expected::Message(content.clone())
        });
        self.pieces.extend(content);
        // The last line may end the stream without its newline.
        if !(last && g.one_in(3)) {
            let end: &[u8] = if g.bool() { b"\r\n" } else { b"\n" };
            self.pieces.push(Piece::Bytes(end.to_vec()));
        }
    }

    fn content_length(&mut self, g: &mut impl Gen, limit: usize) {
        let n = Frames::size(g, self.max, limit);
        let name = g.pick(&["Content-Length", "content-length", "CONTENT-LENGTH"]);
        let spaces = g.pick(&["", " ", "   "]);
        let mut header = format!("{name}:{spaces}{n}{spaces}\r\n");
        if g.one_in(3) {
            let other = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n";
            if g.bool() {
                header.insert_str(0, other);
            } else {
                header.push_str(other);
            }
        }
        header.push_str("\r\n");
        self.pieces.push(Piece::Bytes(header.into_bytes()));
        let body = if n > 64 && g.bool() {
            vec![Piece::Repeat(g.pick(b"x\r\n{"), n)]
        } else {
            // Any bytes at all, header-like ones included.
            vec![Piece::Bytes(
                (0..n).map(|_| g.pick(b"ab\r\n:{}\0\xff")).collect(),
            )]
        };
        self.expected.push(if n > self.max {
            Expected::TooLarge
        } else {
            Expected::Message(body.clone())
        });
        self.pieces.extend(body);
    }

    /// Reads the frames back through the splitting reader and checks they
    /// are exactly the frames written; `each` sees every step, for checks of
    /// its own (memory).
    pub fn check(self, mut each: impl FnMut()) -> Result<(), String> {
        let Frames {
            framing,
            max,
            pieces,
            expected,
            sizes,
            pending,
            cancels,
        } = self;
        let mut expected = expected.into_iter();
        let mut failure = None;
        let mut at = 0;
        read_stream(
            Split::new(pieces, sizes, pending),
            framing,
            max,
            &cancels,
            |seen| {
                each();
                let want = expected.next();
                let ok = match (&seen, &want) {
                    (Seen::Message(bytes), Some(Expected::Message(pieces))) => {
                        same_bytes(bytes, pieces)
                    }
                    (Seen::TooLarge, Some(Expected::TooLarge)) => true,
                    _ => false,
                };
                if !ok && failure.is_none() {
                    let seen = match seen {
                        Seen::Message(bytes) => format!("a message of {} bytes", bytes.len()),
                        other => format!("{other:?}"),
                    };
                    failure = Some(format!(
                        "{framing:?}, max {max}: frame {at} read as {seen}, expected {want:?}"
                    ));
                }
                at += 1;
            },
        )?;
        if let Some(failure) = failure {
            return Err(failure);
        }
        match expected.next() {
            Some(missing) => Err(format!(
                "{framing:?}, max {max}: frame {at} never read: {missing:?}"
            )),
            None => Ok(()),
        }
    }
}
