//! The streaming benchmark's client: one call of `count(n)`, its items read
//! as fast as they come, each checked.
//!
//! ```text
//! streamgen --url ws://127.0.0.1:9311/ --items 500000     # a WebSocket subscription
//! streamgen --url http://127.0.0.1:9311/ --items 500000   # Server-Sent Events
//! ```
//!
//! Once connected (the WebSocket handshake done), it prints `START`, sends
//! the call, reads until the `n`-th item, prints `END`, then
//! `RESULT items=.. errors=.. items_per_s=.. cpu_us=.. window_s=..`: items
//! received in order, items wrong or out of order, and this process's CPU
//! time over the window (so one can see the client is not the bottleneck).
//!
//! Written by hand on a `TcpStream`, reading 64 KiB at a time, so that it
//! is lighter than any of the servers: the WebSocket side unmasked server
//! frames only (the call is one masked frame), the SSE side a chunked or
//! plain body split into events. One current-thread tokio runtime.

use std::time::Instant;

use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typed_rpc_bench::procstat;
use typed_rpc_bench::streams::{METHOD, NOTIFICATION};

const READ_SIZE: usize = 64 * 1024;

fn die(message: &str) -> ! {
    eprintln!("streamgen: {message}");
    std::process::exit(2);
}

/// The count of items and errors, and the item expected next.
#[derive(Default)]
struct Tally {
    items: u64,
    errors: u64,
}

impl Tally {
    /// Counts `item`, which should be the next in order.
    fn item(&mut self, item: Option<u64>) {
        match item {
            Some(i) if i == self.items + self.errors => self.items += 1,
            _ => self.errors += 1,
        }
    }

    fn seen(&self) -> u64 {
        self.items + self.errors
    }
}

/// A subscription's message: the call's reply or a notification.
#[derive(Deserialize)]
struct WsMessage<'a> {
    #[serde(borrow)]
    method: Option<&'a str>,
    params: Option<NotificationParams>,
    result: Option<IgnoredAny>,
    id: Option<u64>,
}

#[derive(Deserialize)]
struct NotificationParams {
    /// Absent in typed-rpc's end-of-stream notification.
    result: Option<u64>,
}

/// An SSE event's data: a whole response to the call.
#[derive(Deserialize)]
struct SseResponse<'a> {
    jsonrpc: &'a str,
    result: Option<u64>,
    id: u64,
}

/// When the window opened: this process's CPU time (ns) and the clock.
type Started = (u64, Instant);

/// Opens the window: prints `START` (the driver reads the server's CPU
/// time on it) and notes this process's CPU time and the clock.
fn start() -> Started {
    println!("START");
    (procstat::cpu_nanos("self").unwrap_or(0), Instant::now())
}

fn call_body(n: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{METHOD}","params":[{n}],"id":1}}"#)
}

fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Appends what the socket has to `buf`; an error once the peer has closed.
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), String> {
    buf.reserve(READ_SIZE);
    let n = stream.read_buf(buf).await.map_err(|e| e.to_string())?;
    if n == 0 {
        return Err("connection closed".to_owned());
    }
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

async fn connect(url: &str) -> TcpStream {
    let stream = TcpStream::connect(authority(url))
        .await
        .unwrap_or_else(|e| die(&format!("connect: {e}")));
    stream
        .set_nodelay(true)
        .unwrap_or_else(|e| die(&e.to_string()));
    stream
}

/// The WebSocket subscription: handshake, `START`, the call as one masked
/// frame, then frames until `n` items.
async fn websocket(url: &str, n: u64, tally: &mut Tally) -> Result<Started, String> {
    let mut stream = connect(url).await;
    let host = authority(url);
    let handshake = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    stream
        .write_all(handshake.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let head_end = read_head(&mut stream, &mut buf).await?;
    if !buf.starts_with(b"HTTP/1.1 101") {
        return Err(String::from_utf8_lossy(&buf[..head_end]).into_owned());
    }
    buf.drain(..head_end);
    let started = start();
    stream
        .write_all(&masked_text(call_body(n).as_bytes()))
        .await
        .map_err(|e| e.to_string())?;
    let mut subscribed = false;
    while tally.seen() < n {
        let mut at = 0;
        while tally.seen() < n
            && let Some((header, length)) = frame_lengths(&buf[at..])
        {
            let end = at + header + length;
            if buf.len() < end {
                break;
            }
            if buf[at] != 0x81 {
                return Err(format!("not a final text frame: {:#x}", buf[at]));
            }
            let message: WsMessage = serde_json::from_slice(&buf[at + header..end])
                .map_err(|e| format!("not a message: {e}"))?;
            if !subscribed {
                subscribed = message.id == Some(1) && message.result.is_some();
                if !subscribed {
                    return Err("the call was not answered with a subscription".to_owned());
                }
            } else if message.method == Some(NOTIFICATION) {
                tally.item(message.params.and_then(|p| p.result));
            } else {
                tally.errors += 1;
            }
            at = end;
        }
        buf.drain(..at);
        if tally.seen() < n {
            read_more(&mut stream, &mut buf).await?;
        }
    }
    Ok(started)
}

/// The header's length and the payload's, once the header is all in.
fn frame_lengths(buf: &[u8]) -> Option<(usize, usize)> {
    match buf.get(1)? & 0x7f {
        126 => Some((
            4,
            usize::from(u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?)),
        )),
        127 => {
            let long = u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?);
            Some((10, usize::try_from(long).ok()?))
        }
        short => Some((2, usize::from(short))),
    }
}

/// `payload` as one masked text frame (the payload is under 126 bytes).
fn masked_text(payload: &[u8]) -> Vec<u8> {
    const MASK: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];
    let len = u8::try_from(payload.len())
        .ok()
        .filter(|&l| l <= 125)
        .expect("a short call");
    let mut frame = vec![0x81, 0x80 | len];
    frame.extend_from_slice(&MASK);
    frame.extend(payload.iter().zip(MASK.iter().cycle()).map(|(b, m)| b ^ m));
    frame
}

/// Server-Sent Events: `START`, the call as a `POST` accepting
/// `text/event-stream`, then events until `n` items.
async fn sse(url: &str, n: u64, tally: &mut Tally) -> Result<Started, String> {
    let mut stream = connect(url).await;
    let body = call_body(n);
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        authority(url),
        body.len()
    );
    let started = start();
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    let head_end = read_head(&mut stream, &mut raw).await?;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") || !head.contains("content-type: text/event-stream") {
        return Err(format!("not an event stream: {head}"));
    }
    let chunked = head.contains("transfer-encoding: chunked");
    raw.drain(..head_end);
    let (mut events, mut ended) = (Vec::new(), false);
    while tally.seen() < n {
        let used = if chunked {
            let (used, last) = dechunk(&raw, &mut events)?;
            ended = last;
            used
        } else {
            events.extend_from_slice(&raw);
            raw.len()
        };
        raw.drain(..used);
        let mut at = 0;
        while tally.seen() < n
            && let Some(end) = find(&events[at..], b"\n\n")
        {
            sse_event(&events[at..at + end], tally)?;
            at += end + 2;
        }
        events.drain(..at);
        if ended && tally.seen() < n {
            return Err("the stream ended early".to_owned());
        }
        if tally.seen() < n {
            read_more(&mut stream, &mut raw).await?;
        }
    }
    Ok(started)
}

/// Appends the data of the whole chunks at the start of `raw` to `out`;
/// how many bytes of `raw` they took, and whether the last chunk was among
/// them.
fn dechunk(raw: &[u8], out: &mut Vec<u8>) -> Result<(usize, bool), String> {
    let mut at = 0;
    while let Some(line) = find(&raw[at..], b"\r\n") {
        let size = std::str::from_utf8(&raw[at..at + line])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .ok_or("a bad chunk size")?;
        let data = at + line + 2;
        if raw.len() < data + size + 2 {
            break;
        }
        at = data + size + 2;
        if size == 0 {
            return Ok((at, true));
        }
        out.extend_from_slice(&raw[data..data + size]);
    }
    Ok((at, false))
}

/// Counts one event: comments (keep-alives) are skipped.
fn sse_event(event: &[u8], tally: &mut Tally) -> Result<(), String> {
    if event.starts_with(b":") {
        return Ok(());
    }
    let data = event
        .strip_prefix(b"data: ")
        .ok_or("an event without data")?;
    let response: SseResponse =
        serde_json::from_slice(data).map_err(|e| format!("not a response: {e}"))?;
    if response.jsonrpc == "2.0" && response.id == 1 {
        tally.item(response.result);
    } else {
        tally.errors += 1;
    }
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut url, mut n) = (None, 500_000u64);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| die(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--url" => url = Some(value),
            "--items" => n = value.parse().unwrap_or_else(|_| die("bad --items")),
            other => die(&format!("unknown argument {other}")),
        }
    }
    let url = url.unwrap_or_else(|| die("--url is required"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut tally = Tally::default();
    let outcome = rt.block_on(async {
        if url.starts_with("ws://") {
            websocket(&url, n, &mut tally).await
        } else {
            sse(&url, n, &mut tally).await
        }
    });
    let (cpu0, t0) =
        outcome.unwrap_or_else(|err| die(&format!("after {} items: {err}", tally.items)));
    let window = t0.elapsed().as_secs_f64();
    let cpu_us = procstat::cpu_nanos("self")
        .unwrap_or(0)
        .saturating_sub(cpu0)
        / 1000;
    println!("END");
    println!(
        "RESULT items={} errors={} items_per_s={:.0} cpu_us={cpu_us} window_s={window:.4}",
        tally.items,
        tally.errors,
        tally.items as f64 / window,
    );
}
