//! Closed-loop load generator: `C` keep-alive connections, one request in
//! flight on each, for `S` seconds, over HTTP/1.1 or WebSocket.
//!
//! ```text
//! loadgen --url http://127.0.0.1:9101/ [-c 16] [-d 5] [--warmup 1] [--client raw|hyper]
//! loadgen --url ws://127.0.0.1:9102/   [-c 16] [-d 5] [--warmup 1] [--ws-client raw|tungstenite]
//! loadgen --url ws://127.0.0.1:9102/ --idle 1000   # memory per idle connection
//! loadgen --url http://127.0.0.1:9101/ -c 16 --requests 20000   # a fixed count, no timing
//! loadgen --url ws://127.0.0.1:9102/ -c 16 --requests 20000 --notify 10   # 10 notifications before each
//! ```
//!
//! `--requests N` makes exactly N requests in all (N / C on each connection,
//! the first connections taking the remainder), with no warm-up, then prints
//! `RESULT requests=.. errors=..`: for counting what the server does per
//! request (instructions under callgrind, syscalls under strace), where the
//! difference between two counts cancels the connection setup.
//!
//! `--notify K` (WebSocket, `raw` client) sends K notifications
//! (`notify(1, 2)`, one frame each) in the same write as each request: the
//! difference of two servers' counts with and without them, over K, is
//! what a server does per notification.
//!
//! Every request is `add(conn, seq)` with id `seq`; every reply is checked
//! (status 200, `jsonrpc`, the id sent, the sum). A wrong reply counts as an
//! error and the connection goes on; a broken connection stops that worker.
//!
//! Output, one line each, for the runner to read: `START` when the measured
//! window opens (after the warm-up), `END` when it closes, then
//! `RESULT key=value ...`: requests, errors, rps, p50_us, p99_us, cpu_us (this
//! process's CPU time over the window, so one can see it is not the
//! bottleneck).
//!
//! The HTTP client is `raw` by default: a hand-written minimal HTTP/1.1 client
//! on a `TcpStream` (a fixed request head, `Content-Length` bodies only),
//! measured lighter than hyper's client connection (`--client hyper`); so is
//! the WebSocket client (`--ws-client raw`, the default): a hand-written
//! handshake, then masked text frames out and unmasked frames in, lighter
//! than tokio-tungstenite's client (`--ws-client tungstenite`), see
//! BENCHMARKS.md. Everything runs on one current-thread tokio runtime, so the
//! generator uses exactly one CPU.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use typed_rpc_bench::procstat;

/// Phases of a run, shared by the workers.
const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

struct Args {
    url: String,
    conns: u64,
    duration: f64,
    warmup: f64,
    client: String,
    ws_client: String,
    idle: Option<u64>,
    requests: Option<u64>,
    notify: usize,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: String::new(),
        conns: 16,
        duration: 5.0,
        warmup: 1.0,
        client: "raw".to_owned(),
        ws_client: "raw".to_owned(),
        idle: None,
        requests: None,
        notify: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| die(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--url" => args.url = value(),
            "-c" | "--conns" => args.conns = value().parse().unwrap_or_else(|_| die("bad -c")),
            "-d" | "--duration" => {
                args.duration = value().parse().unwrap_or_else(|_| die("bad -d"))
            }
            "--warmup" => args.warmup = value().parse().unwrap_or_else(|_| die("bad --warmup")),
            "--client" => args.client = value(),
            "--ws-client" => args.ws_client = value(),
            "--idle" => args.idle = Some(value().parse().unwrap_or_else(|_| die("bad --idle"))),
            "--requests" => {
                args.requests = Some(value().parse().unwrap_or_else(|_| die("bad --requests")))
            }
            "--notify" => args.notify = value().parse().unwrap_or_else(|_| die("bad --notify")),
            other => die(&format!("unknown argument {other}")),
        }
    }
    if args.url.is_empty() {
        die("--url is required");
    }
    args
}

fn die(message: &str) -> ! {
    eprintln!("loadgen: {message}");
    std::process::exit(2);
}

/// `host:port` of an `http://` or `ws://` URL.
fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest)
}

/// A reply as the checker reads it.
#[derive(Deserialize)]
struct Reply<'a> {
    jsonrpc: &'a str,
    id: u64,
    result: Option<i64>,
    error: Option<IgnoredAny>,
}

fn request_body(conn: u64, seq: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{conn},{seq}],"id":{seq}}}"#)
}

fn reply_ok(body: &[u8], conn: u64, seq: u64) -> bool {
    match serde_json::from_slice::<Reply>(body) {
        Ok(r) => {
            r.jsonrpc == "2.0"
                && r.id == seq
                && r.error.is_none()
                && r.result == Some((conn + seq) as i64)
        }
        Err(_) => false,
    }
}

/// What one worker saw.
#[derive(Default)]
struct Tally {
    latencies_ns: Vec<u64>,
    errors: u64,
    broken: Option<String>,
}

/// One round trip on some connection: the reply body, or why it failed.
trait Conn {
    async fn round_trip(&mut self, body: String) -> Result<Vec<u8>, String>;
}

/// The minimal HTTP/1.1 client.
struct RawHttp {
    stream: TcpStream,
    head: String,
    buf: Vec<u8>,
}

impl RawHttp {
    async fn connect(url: &str) -> Result<Self, String> {
        let host = authority(url);
        let stream = TcpStream::connect(host).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let path = path(url);
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: "
        );
        Ok(RawHttp {
            stream,
            head,
            buf: Vec::with_capacity(4096),
        })
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The path of an `http://` or `ws://` URL.
fn path(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or("/")
}

/// Appends what the socket has to `buf`; an error once the peer has closed.
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    let mut chunk = [0u8; 4096];
    let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
    if n == 0 {
        return Err("connection closed".to_owned());
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

/// Reads until `buf` holds a whole HTTP head; its length.
async fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<usize, String> {
    loop {
        if let Some(i) = find(buf, b"\r\n\r\n") {
            return Ok(i + 4);
        }
        read_more(stream, buf).await?;
    }
}

impl Conn for RawHttp {
    async fn round_trip(&mut self, body: String) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(self.head.len() + body.len() + 16);
        out.extend_from_slice(self.head.as_bytes());
        write!(out, "{}\r\n\r\n", body.len()).map_err(|e| e.to_string())?;
        out.extend_from_slice(body.as_bytes());
        self.stream
            .write_all(&out)
            .await
            .map_err(|e| e.to_string())?;
        // Read until the head is complete, then the Content-Length body.
        let head_end = read_head(&mut self.stream, &mut self.buf).await?;
        let head = std::str::from_utf8(&self.buf[..head_end]).map_err(|e| e.to_string())?;
        if !head.starts_with("HTTP/1.1 200") {
            let status = head.lines().next().unwrap_or("").to_owned();
            self.buf.clear();
            return Err(format!("status {status}"));
        }
        let length: usize = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .ok_or("no Content-Length in the reply")?;
        while self.buf.len() < head_end + length {
            read_more(&mut self.stream, &mut self.buf).await?;
        }
        let reply = self.buf[head_end..head_end + length].to_vec();
        self.buf.drain(..head_end + length);
        Ok(reply)
    }
}

/// hyper 1's client connection, for comparison with [`RawHttp`].
struct HyperHttp {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    uri: hyper::Uri,
    host: String,
}

impl HyperHttp {
    async fn connect(url: &str) -> Result<Self, String> {
        let host = authority(url).to_owned();
        let stream = TcpStream::connect(&host).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(|e| e.to_string())?;
        tokio::task::spawn_local(connection);
        Ok(HyperHttp {
            sender,
            uri: url
                .parse()
                .map_err(|e: hyper::http::uri::InvalidUri| e.to_string())?,
            host,
        })
    }
}

impl Conn for HyperHttp {
    async fn round_trip(&mut self, body: String) -> Result<Vec<u8>, String> {
        let request = hyper::Request::post(self.uri.clone())
            .header(hyper::header::HOST, &self.host)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        if response.status() != hyper::StatusCode::OK {
            return Err(format!("status {}", response.status()));
        }
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok(bytes.to_vec())
    }
}

/// The minimal WebSocket client: a fixed handshake, then each request as
/// one masked text frame, each reply read as one unfragmented frame.
struct RawWs {
    stream: TcpStream,
    buf: Vec<u8>,
    /// The notification frames written before each request (`--notify`).
    notes: Vec<u8>,
}

/// The client's masking key: fixed, which the protocol allows a client
/// that is not a browser; the server unmasks whatever the key.
const MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];

impl RawWs {
    async fn connect(url: &str, notify: usize) -> Result<Self, String> {
        let host = authority(url);
        let mut stream = TcpStream::connect(host).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let path = path(url);
        let handshake = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        stream
            .write_all(handshake.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let note = masked_frame(br#"{"jsonrpc":"2.0","method":"notify","params":[1,2]}"#)?;
        let mut conn = RawWs {
            stream,
            buf: Vec::with_capacity(4096),
            notes: note.repeat(notify),
        };
        let head_end = read_head(&mut conn.stream, &mut conn.buf).await?;
        if !conn.buf.starts_with(b"HTTP/1.1 101") {
            return Err(format!(
                "handshake refused: {}",
                String::from_utf8_lossy(&conn.buf[..head_end])
            ));
        }
        conn.buf.drain(..head_end);
        Ok(conn)
    }

    /// The header's length and the payload's, once the header is all in.
    fn frame_lengths(&self) -> Option<(usize, usize)> {
        let short = usize::from(*self.buf.get(1)? & 0x7f);
        match short {
            126 => Some((
                4,
                usize::from(u16::from_be_bytes(self.buf.get(2..4)?.try_into().ok()?)),
            )),
            127 => {
                let long = u64::from_be_bytes(self.buf.get(2..10)?.try_into().ok()?);
                Some((10, usize::try_from(long).ok()?))
            }
            short => Some((2, short)),
        }
    }
}

impl Conn for RawWs {
    async fn round_trip(&mut self, body: String) -> Result<Vec<u8>, String> {
        let frame = masked_frame(body.as_bytes())?;
        let frames = match self.notes.is_empty() {
            true => frame,
            false => [self.notes.as_slice(), &frame].concat(),
        };
        self.stream
            .write_all(&frames)
            .await
            .map_err(|e| e.to_string())?;
        loop {
            let (header, length) = loop {
                match self.frame_lengths() {
                    Some((header, length)) if self.buf.len() >= header + length => {
                        break (header, length);
                    }
                    _ => read_more(&mut self.stream, &mut self.buf).await?,
                }
            };
            let (first, second) = (self.buf[0], self.buf[1]);
            let payload = self.buf[header..header + length].to_vec();
            self.buf.drain(..header + length);
            if second & 0x80 != 0 {
                return Err("a masked frame from the server".to_owned());
            }
            match (first & 0x80 != 0, first & 0x0f) {
                (true, 0x1 | 0x2) => return Ok(payload),
                (_, 0x9 | 0xa) => continue, // ping, pong
                (_, 0x8) => return Err("connection closed".to_owned()),
                (fin, opcode) => {
                    return Err(format!("unexpected frame: fin {fin}, opcode {opcode}"));
                }
            }
        }
    }
}

/// `payload` as one masked text frame.
fn masked_frame(payload: &[u8]) -> Result<Vec<u8>, String> {
    let mut frame = Vec::with_capacity(payload.len() + 8);
    frame.push(0x81); // FIN, text
    match payload.len() {
        len @ 0..=125 => frame.push(0x80 | len as u8),
        len => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&u16::try_from(len).map_err(|e| e.to_string())?.to_be_bytes());
        }
    }
    frame.extend_from_slice(&MASK);
    frame.extend(payload.iter().zip(MASK.iter().cycle()).map(|(b, m)| b ^ m));
    Ok(frame)
}

type WsStream = tokio_tungstenite::WebSocketStream<TcpStream>;

struct Ws {
    stream: WsStream,
}

impl Ws {
    async fn connect(url: &str) -> Result<Self, String> {
        let stream = TcpStream::connect(authority(url))
            .await
            .map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (stream, _) = tokio_tungstenite::client_async(url, stream)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Ws { stream })
    }
}

impl Conn for Ws {
    async fn round_trip(&mut self, body: String) -> Result<Vec<u8>, String> {
        self.stream
            .send(Message::text(body))
            .await
            .map_err(|e| e.to_string())?;
        loop {
            match self.stream.next().await {
                Some(Ok(Message::Text(text))) => return Ok(text.as_bytes().to_vec()),
                Some(Ok(Message::Binary(bytes))) => return Ok(bytes.to_vec()),
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                Some(Ok(Message::Close(_))) | None => return Err("connection closed".to_owned()),
                Some(Err(e)) => return Err(e.to_string()),
            }
        }
    }
}

async fn connect(url: &str, args: &Args) -> Result<Box<dyn DynConn>, String> {
    let ws = url.starts_with("ws://");
    if args.notify > 0 && !(ws && args.ws_client == "raw") {
        die("--notify needs a ws:// URL and the raw WebSocket client");
    }
    match (ws, args.client.as_str(), args.ws_client.as_str()) {
        (true, _, "raw") => Ok(Box::new(RawWs::connect(url, args.notify).await?)),
        (true, _, "tungstenite") => Ok(Box::new(Ws::connect(url).await?)),
        (false, "raw", _) => Ok(Box::new(RawHttp::connect(url).await?)),
        (false, "hyper", _) => Ok(Box::new(HyperHttp::connect(url).await?)),
        (true, _, other) => die(&format!("unknown --ws-client {other}")),
        (false, other, _) => die(&format!("unknown --client {other}")),
    }
}

/// [`Conn`] behind a pointer: the worker loop is written once.
trait DynConn {
    fn round_trip_boxed(
        &mut self,
        body: String,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + '_>>;
}

impl<T: Conn> DynConn for T {
    fn round_trip_boxed(
        &mut self,
        body: String,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + '_>> {
        Box::pin(self.round_trip(body))
    }
}

async fn worker(conn_index: u64, mut conn: Box<dyn DynConn>, phase: Arc<AtomicU8>) -> Tally {
    let mut tally = Tally {
        latencies_ns: Vec::with_capacity(1 << 16),
        ..Tally::default()
    };
    let mut seq = 0u64;
    loop {
        let now = phase.load(Ordering::Relaxed);
        if now == STOP {
            return tally;
        }
        seq += 1;
        let body = request_body(conn_index, seq);
        let started = Instant::now();
        let outcome = conn.round_trip_boxed(body).await;
        let elapsed = started.elapsed().as_nanos() as u64;
        // Count only what started and finished inside the window.
        let counted = now == MEASURE && phase.load(Ordering::Relaxed) == MEASURE;
        match outcome {
            Ok(reply) if reply_ok(&reply, conn_index, seq) => {
                if counted {
                    tally.latencies_ns.push(elapsed);
                }
            }
            Ok(reply) => {
                if counted {
                    tally.errors += 1;
                }
                if tally.errors <= 3 {
                    eprintln!(
                        "loadgen: wrong reply on conn {conn_index} seq {seq}: {}",
                        String::from_utf8_lossy(&reply)
                    );
                }
            }
            Err(err) => {
                tally.errors += 1;
                tally.broken = Some(err);
                return tally;
            }
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[rank] as f64 / 1000.0
}

async fn load(args: &Args) {
    let phase = Arc::new(AtomicU8::new(WARMUP));
    let mut workers = Vec::new();
    for c in 0..args.conns {
        let conn = connect(&args.url, args)
            .await
            .unwrap_or_else(|e| die(&format!("connect {}: {e}", args.url)));
        workers.push(tokio::task::spawn_local(worker(c, conn, phase.clone())));
    }
    tokio::time::sleep(Duration::from_secs_f64(args.warmup)).await;
    let cpu0 = procstat::cpu_micros("self").unwrap_or(0);
    let t0 = Instant::now();
    phase.store(MEASURE, Ordering::Relaxed);
    println!("START");
    tokio::time::sleep(Duration::from_secs_f64(args.duration)).await;
    phase.store(STOP, Ordering::Relaxed);
    let window = t0.elapsed().as_secs_f64();
    let cpu = procstat::cpu_micros("self").unwrap_or(0) - cpu0;
    println!("END");
    let mut latencies = Vec::new();
    let mut errors = 0;
    for w in workers {
        let tally = w.await.expect("a worker");
        latencies.extend_from_slice(&tally.latencies_ns);
        errors += tally.errors;
        if let Some(broken) = tally.broken {
            eprintln!("loadgen: a connection broke: {broken}");
        }
    }
    latencies.sort_unstable();
    let requests = latencies.len();
    println!(
        "RESULT requests={requests} errors={errors} rps={:.0} p50_us={:.1} p99_us={:.1} cpu_us={cpu} window_s={window:.3}",
        requests as f64 / window,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
    );
}

/// Opens one connection and makes one call (`WARM`), then `n` more that each
/// make one call and stay open (`READY`), until stdin closes.
async fn idle(args: &Args, n: u64) {
    let mut conns = Vec::new();
    let check = |c: u64, reply: Result<Vec<u8>, String>| match reply {
        Ok(reply) if reply_ok(&reply, c, 1) => {}
        other => die(&format!(
            "idle connection {c}: bad reply {:?}",
            other.map(String::from_utf8)
        )),
    };
    let mut first = connect(&args.url, args).await.unwrap_or_else(|e| die(&e));
    check(0, first.round_trip_boxed(request_body(0, 1)).await);
    conns.push(first);
    // Let the server settle before the baseline is read.
    tokio::time::sleep(Duration::from_millis(300)).await;
    println!("WARM");
    for c in 1..=n {
        let mut conn = connect(&args.url, args)
            .await
            .unwrap_or_else(|e| die(&format!("idle connection {c}: {e}")));
        check(c, conn.round_trip_boxed(request_body(c, 1)).await);
        conns.push(conn);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    println!("READY");
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    drop(conns);
}

/// Makes exactly `total` requests over `args.conns` connections, checked, untimed.
async fn fixed(args: &Args, total: u64) {
    let mut workers = Vec::new();
    for c in 0..args.conns {
        let mut conn = connect(&args.url, args)
            .await
            .unwrap_or_else(|e| die(&format!("connect {}: {e}", args.url)));
        let count = total / args.conns + u64::from(c < total % args.conns);
        workers.push(tokio::task::spawn_local(async move {
            let mut errors = 0u64;
            for seq in 1..=count {
                match conn.round_trip_boxed(request_body(c, seq)).await {
                    Ok(reply) if reply_ok(&reply, c, seq) => {}
                    Ok(_) => errors += 1,
                    Err(err) => die(&format!("conn {c} seq {seq}: {err}")),
                }
            }
            (count, errors)
        }));
    }
    let (mut requests, mut errors) = (0, 0);
    for w in workers {
        let (r, e) = w.await.expect("a worker");
        requests += r;
        errors += e;
    }
    println!("RESULT requests={requests} errors={errors}");
}

fn main() {
    let args = parse_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        match (args.idle, args.requests) {
            (Some(n), _) => idle(&args, n).await,
            (None, Some(total)) => fixed(&args, total).await,
            (None, None) => load(&args).await,
        }
    });
}
