//! Raw peers: every wire the server speaks, written and parsed by hand over
//! a socket (newline-delimited and Content-Length streams, WebSocket frames,
//! HTTP/1.1), so that a test sends exactly the bytes it means and every byte
//! the server sends back is checked.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// How long a raw peer waits for the server before it counts as a hang.
pub const PATIENCE: Duration = Duration::from_secs(10);
pub const KIB: usize = 1024;

/// A request, as JSON text.
pub fn call(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id}).to_string()
}

/// A connection with Nagle off (single bytes go out as they are written)
/// and, when `buffers` is given, kernel buffers of about that size instead
/// of autotuned ones. Returns the receive buffer the kernel granted.
pub async fn connect(addr: SocketAddr, buffers: Option<u32>) -> (TcpStream, usize) {
    let socket = TcpSocket::new_v4().unwrap();
    if let Some(size) = buffers {
        socket.set_recv_buffer_size(size).unwrap();
        socket.set_send_buffer_size(size).unwrap();
    }
    let granted = socket.recv_buffer_size().unwrap() as usize;
    let stream = socket.connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    (stream, granted)
}

/// How a raw peer frames what it sends, and reads what the server sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wire {
    Lines,
    ContentLength,
    Ws,
    Http,
}

/// A message from the server.
#[derive(Debug)]
pub enum Got {
    Json(Value),
    /// A WebSocket close frame's code.
    Close(u16),
    Http(Response),
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// The head, lowercased.
    pub head: String,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn closes(&self) -> bool {
        self.head.contains("\r\nconnection: close")
    }
}

// Opcodes (RFC 6455, section 5.2) and the flags of a frame's first byte.
pub const OP_CONTINUATION: u8 = 0x0;
pub const OP_TEXT: u8 = 0x1;
pub const OP_CLOSE: u8 = 0x8;
pub const OP_PING: u8 = 0x9;
pub const OP_PONG: u8 = 0xA;
pub const FIN: u8 = 0x80;
pub const RSV1: u8 = 0x40;
pub const RSV2: u8 = 0x20;
pub const RSV3: u8 = 0x10;

/// RFC 6455's own example masking key.
pub const WS_MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];
/// The all-zero masking key: the payload goes as it is, so a test can cut
/// a frame anywhere and know which bytes of its text went out.
pub const WS_NO_MASK: [u8; 4] = [0; 4];

/// A client frame's header: `first` holds FIN, the RSV bits and the
/// opcode; the length takes 7, 16 or 64 bits as it needs; the mask bit is
/// set and `mask` follows.
pub fn ws_header(first: u8, len: u64, mask: [u8; 4]) -> Vec<u8> {
    let mut header = vec![first];
    match len {
        0..=125 => header.push(0x80 | len as u8),
        126..=0xffff => {
            header.push(0x80 | 126);
            header.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            header.push(0x80 | 127);
            header.extend_from_slice(&len.to_be_bytes());
        }
    }
    header.extend_from_slice(&mask);
    header
}

/// A whole client frame: its header and the payload masked with `mask`.
pub fn ws_frame(first: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut frame = ws_header(first, payload.len() as u64, mask);
    frame.extend(payload.iter().zip(mask.iter().cycle()).map(|(b, m)| b ^ m));
    frame
}

pub fn post(body: &str) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

pub fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|err| {
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]);
        panic!("not JSON ({err}): {shown}")
    })
}

impl Wire {
    pub fn encode(self, message: &str) -> Vec<u8> {
        match self {
            Wire::Lines => format!("{message}\n").into_bytes(),
            Wire::ContentLength => {
                format!("Content-Length: {}\r\n\r\n{message}", message.len()).into_bytes()
            }
            Wire::Ws => ws_frame(FIN | OP_TEXT, message.as_bytes(), WS_NO_MASK),
            Wire::Http => post(message),
        }
    }

    /// Takes the first whole message out of `buf`; `None` while it is
    /// incomplete. Anything malformed fails the test.
    pub fn decode(self, buf: &mut Vec<u8>) -> Option<Got> {
        match self {
            Wire::Lines => {
                let end = buf.iter().position(|&b| b == b'\n')?;
                let line: Vec<u8> = buf.drain(..=end).collect();
                Some(Got::Json(parse(&line[..end])))
            }
            Wire::ContentLength => {
                let end = find(buf, b"\r\n\r\n")?;
                let head = std::str::from_utf8(&buf[..end]).unwrap();
                let length: usize = head
                    .strip_prefix("Content-Length: ")
                    .unwrap_or_else(|| panic!("not a Content-Length header: {head:?}"))
                    .parse()
                    .unwrap();
                if buf.len() < end + 4 + length {
                    return None;
                }
                let body = buf[end + 4..end + 4 + length].to_vec();
                buf.drain(..end + 4 + length);
                Some(Got::Json(parse(&body)))
            }
            Wire::Ws => {
                if buf.len() < 2 {
                    return None;
                }
                let (first, second) = (buf[0], buf[1]);
                assert_eq!(first & 0x70, 0, "no extension was negotiated");
                assert_eq!(second & 0x80, 0, "a server's frames are not masked");
                let (len, at) = match second & 0x7f {
                    126 if buf.len() >= 4 => (u16::from_be_bytes([buf[2], buf[3]]) as usize, 4),
                    127 if buf.len() >= 10 => (
                        u64::from_be_bytes(buf[2..10].try_into().unwrap()) as usize,
                        10,
                    ),
                    126 | 127 => return None,
                    len => (len as usize, 2),
                };
                if buf.len() < at + len {
                    return None;
                }
                let payload = buf[at..at + len].to_vec();
                buf.drain(..at + len);
                assert!(
                    first & 0x80 != 0,
                    "the server does not fragment its messages"
                );
                match first & 0x0f {
                    OP_TEXT => Some(Got::Json(parse(&payload))),
                    OP_CLOSE => Some(Got::Close(u16::from_be_bytes([payload[0], payload[1]]))),
                    other => panic!("unexpected opcode {other}"),
                }
            }
            Wire::Http => {
                let end = find(buf, b"\r\n\r\n")?;
                let head = String::from_utf8(buf[..end + 2].to_vec())
                    .unwrap()
                    .to_ascii_lowercase();
                let status = head[9..12].parse().unwrap();
                let length = head
                    .split("\r\n")
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |value| value.trim().parse().unwrap());
                assert!(
                    !head.contains("transfer-encoding"),
                    "bodies have a length: {head}"
                );
                if buf.len() < end + 4 + length {
                    return None;
                }
                let body = buf[end + 4..end + 4 + length].to_vec();
                buf.drain(..end + 4 + length);
                Some(Got::Http(Response { status, head, body }))
            }
        }
    }
}

/// The reading side of a raw peer: parses every byte the server sends.
pub struct Peer<R> {
    pub io: R,
    pub wire: Wire,
    pub buf: Vec<u8>,
    /// How much of `buf` is known to hold no whole message.
    pub scanned: usize,
    /// Whether the connection ended with a reset rather than a close.
    pub reset: bool,
}

impl<R: AsyncRead + Unpin> Peer<R> {
    pub fn new(io: R, wire: Wire) -> Self {
        Peer {
            io,
            wire,
            buf: Vec::new(),
            scanned: 0,
            reset: false,
        }
    }

    /// The next message; `None` once the server has ended the connection
    /// between two messages. A connection that ends inside a message, or no
    /// message in time, fails the test.
    pub async fn next(&mut self) -> Option<Got> {
        loop {
            // A line is searched for its end once (a big one comes in many reads).
            if (self.wire != Wire::Lines || self.buf[self.scanned..].contains(&b'\n'))
                && let Some(got) = self.wire.decode(&mut self.buf)
            {
                self.scanned = 0;
                return Some(got);
            }
            self.scanned = self.buf.len();
            self.buf.reserve(64 * KIB);
            let read = tokio::time::timeout(PATIENCE, self.io.read_buf(&mut self.buf))
                .await
                .expect("the server answers in time");
            match read {
                Ok(1..) => {}
                Ok(0) | Err(_) => {
                    self.reset = read.is_err();
                    assert!(
                        self.buf.is_empty(),
                        "the connection ended inside a message ({} bytes left over: {:?})",
                        self.buf.len(),
                        String::from_utf8_lossy(&self.buf[..self.buf.len().min(100)])
                    );
                    return None;
                }
            }
        }
    }

    pub async fn json(&mut self) -> Value {
        match self.next().await {
            Some(Got::Json(value)) => value,
            Some(Got::Http(response)) if response.status == 200 => response.json(),
            other => panic!("expected a JSON-RPC message, got {other:?}"),
        }
    }
}

/// Opens a WebSocket connection by hand; `Err(status)` when the handshake is refused.
pub async fn ws_handshake(io: &mut TcpStream) -> Result<(), u16> {
    io.write_all(WS_HANDSHAKE).await.map_err(|_| 0u16)?;
    // Byte by byte, so that nothing after the head is consumed.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        match tokio::time::timeout(PATIENCE, io.read_u8()).await {
            Ok(Ok(byte)) => head.push(byte),
            Ok(Err(_)) => return Err(0),
            Err(_) => panic!("no handshake answer in time"),
        }
    }
    let status = std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap();
    if status == 101 { Ok(()) } else { Err(status) }
}

/// A WebSocket client's handshake, written by hand with RFC 6455's example key.
pub const WS_HANDSHAKE: &[u8] =
    b"GET / HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
    Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

/// An HTTP response's head, read byte by byte so nothing after it (the
/// first WebSocket frames) is consumed; fails the test after 5 s.
pub async fn read_head(tcp: &mut TcpStream) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let byte = tokio::time::timeout(Duration::from_secs(5), tcp.read_u8())
            .await
            .expect("a response in time")
            .expect("a response head");
        head.push(byte);
    }
    String::from_utf8(head).unwrap()
}
