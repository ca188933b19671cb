//! A client's one exchange with a server over a fresh connection, on each
//! transport, written by hand: a call of `add(1, 2)` and its reply, or the
//! refusal the server sent instead.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::raw::{FIN, OP_TEXT, WS_HANDSHAKE, WS_MASK, call, find, post, ws_frame};

/// How long one exchange may take before it counts as failed.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(5);

/// The transports a client connects over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Http,
    /// A WebSocket on the HTTP port.
    Ws,
    /// Newline-delimited JSON over TCP.
    Tcp,
}

/// What the server did instead of answering.
#[derive(Debug)]
#[allow(dead_code, reason = "shown in the failures a test reports")]
pub enum Failure {
    /// An HTTP status other than `200` (a handshake's other than `101`),
    /// with the response head, lowercased.
    Status(u16, String),
    /// A JSON-RPC error on TCP.
    Error(Value),
    /// A WebSocket close frame, with its code.
    Closed(u16),
    /// Anything else: a reset, an early close, no answer in time.
    Broken(String),
}

/// The loopback address a client connects from by default.
pub const HOME: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// Connects from `from` (a loopback address) to `addr`.
pub async fn connect(addr: SocketAddr, from: IpAddr) -> Result<TcpStream, Failure> {
    let socket = TcpSocket::new_v4().map_err(broken)?;
    socket.bind(SocketAddr::new(from, 0)).map_err(broken)?;
    let stream = socket.connect(addr).await.map_err(broken)?;
    stream.set_nodelay(true).map_err(broken)?;
    Ok(stream)
}

/// Opens a connection and, for WebSocket, completes the handshake.
pub async fn open(transport: Transport, addr: SocketAddr, from: IpAddr) -> Result<Io, Failure> {
    within(async {
        let mut io = Io::new(connect(addr, from).await?);
        if transport == Transport::Ws {
            io.stream.write_all(WS_HANDSHAKE).await.map_err(broken)?;
            let (status, head) = io.head().await?;
            if status != 101 {
                return Err(Failure::Status(status, head));
            }
        }
        Ok(io)
    })
    .await
}

/// One call of `add(1, 2)` on an open connection; checks the reply is `3`.
pub async fn add(transport: Transport, io: &mut Io) -> Result<(), Failure> {
    within(async {
        let request = call(1, "add", json!([1, 2]));
        let bytes = match transport {
            Transport::Http => post(&request),
            Transport::Ws => ws_frame(FIN | OP_TEXT, request.as_bytes(), WS_MASK),
            Transport::Tcp => format!("{request}\n").into_bytes(),
        };
        io.stream.write_all(&bytes).await.map_err(broken)?;
        let reply = io.reply(transport).await?;
        if reply["result"] == 3 {
            Ok(())
        } else {
            Err(Failure::Error(reply))
        }
    })
    .await
}

/// A fresh connection from `from` and one call on it: what a new client does.
pub async fn fresh_call(
    transport: Transport,
    addr: SocketAddr,
    from: IpAddr,
) -> Result<Io, Failure> {
    let mut io = open(transport, addr, from).await?;
    add(transport, &mut io).await?;
    Ok(io)
}

async fn within<T>(exchange: impl Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
    tokio::time::timeout(EXCHANGE_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| Err(Failure::Broken("no answer in time".into())))
}

/// A connection and what was read from it past the last message.
pub struct Io {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Io {
    pub fn new(stream: TcpStream) -> Self {
        Io {
            stream,
            buf: Vec::new(),
        }
    }

    /// Gives up what was read ahead, to hold the connection cheaply.
    pub fn into_stream(self) -> TcpStream {
        self.stream
    }

    async fn fill(&mut self) -> Result<(), Failure> {
        // Into the buffer itself: a chunk on the stack would make every
        // waiting exchange's future that much larger.
        self.buf.reserve(4096);
        match self.stream.read_buf(&mut self.buf).await {
            Ok(0) => Err(Failure::Broken("closed".into())),
            Ok(_) => Ok(()),
            Err(err) => Err(broken(err)),
        }
    }

    /// The next reply over `transport`: a `200` response's JSON body, a
    /// WebSocket text message, a line.
    pub async fn reply(&mut self, transport: Transport) -> Result<Value, Failure> {
        within(async {
            match transport {
                Transport::Http => {
                    let (status, head) = self.head().await?;
                    let body = self.body(&head).await?;
                    if status != 200 {
                        return Err(Failure::Status(status, head));
                    }
                    parse(&body)
                }
                Transport::Ws => self.ws_message().await,
                Transport::Tcp => self.line().await,
            }
        })
        .await
    }

    /// An HTTP response head: its status, and the head lowercased.
    async fn head(&mut self) -> Result<(u16, String), Failure> {
        let end = loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                break end + 4;
            }
            self.fill().await?;
        };
        let head: Vec<u8> = self.buf.drain(..end).collect();
        let head = String::from_utf8_lossy(&head).to_lowercase();
        let status = head
            .get(9..12)
            .and_then(|status| status.parse().ok())
            .ok_or_else(|| Failure::Broken(format!("not a response: {head}")))?;
        Ok((status, head))
    }

    /// The body after `head`, of its `Content-Length`.
    async fn body(&mut self, head: &str) -> Result<Vec<u8>, Failure> {
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|length| length.trim().parse().ok())
            .unwrap_or(0);
        while self.buf.len() < length {
            self.fill().await?;
        }
        Ok(self.buf.drain(..length).collect())
    }

    /// One line of JSON.
    async fn line(&mut self) -> Result<Value, Failure> {
        let end = loop {
            if let Some(end) = self.buf.iter().position(|&byte| byte == b'\n') {
                break end;
            }
            self.fill().await?;
        };
        let line: Vec<u8> = self.buf.drain(..=end).collect();
        let reply = parse(&line[..end])?;
        if reply.get("error").is_some() {
            return Err(Failure::Error(reply));
        }
        Ok(reply)
    }

    /// One unmasked WebSocket frame from the server: a text message of
    /// JSON, or a close.
    async fn ws_message(&mut self) -> Result<Value, Failure> {
        loop {
            if self.buf.len() >= 2 {
                let (opcode, short) = (self.buf[0] & 0x0f, usize::from(self.buf[1] & 0x7f));
                let (start, len) = match short {
                    126 if self.buf.len() >= 4 => (
                        4,
                        usize::from(u16::from_be_bytes([self.buf[2], self.buf[3]])),
                    ),
                    126 | 127 => (usize::MAX, 0),
                    len => (2, len),
                };
                if start != usize::MAX && self.buf.len() >= start + len {
                    let payload: Vec<u8> = self.buf.drain(..start + len).skip(start).collect();
                    if opcode == 0x8 {
                        let code = payload
                            .get(..2)
                            .map_or(1005, |code| u16::from_be_bytes([code[0], code[1]]));
                        return Err(Failure::Closed(code));
                    }
                    return parse(&payload);
                }
            }
            self.fill().await?;
        }
    }
}

fn parse(bytes: &[u8]) -> Result<Value, Failure> {
    serde_json::from_slice(bytes).map_err(|err| {
        Failure::Broken(format!(
            "not JSON ({err}): {}",
            String::from_utf8_lossy(bytes)
        ))
    })
}

fn broken(err: std::io::Error) -> Failure {
    Failure::Broken(err.to_string())
}
