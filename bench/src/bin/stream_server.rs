//! A server of the streaming benchmark API (`typed_rpc_bench::streams`):
//!
//! ```text
//! stream_server ours --addr 127.0.0.1:9311        # SSE and WebSocket on one port
//! stream_server jsonrpsee --addr 127.0.0.1:9211   # WebSocket subscriptions
//! stream_server floor --addr 127.0.0.1:9111       # WebSocket, hand-written frames
//! stream_server floor-sse --addr 127.0.0.1:9112   # Server-Sent Events, hand-written chunks
//! ```
//!
//! One current-thread tokio runtime (the driver pins the process to one CPU).

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use typed_rpc::transport::Server;
use typed_rpc_bench::streams::{self, floor};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().expect("ours, jsonrpsee or floor");
    let mut addr = None;
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--addr" => addr = args.next(),
            other => panic!("unknown argument {other}"),
        }
    }
    let addr = addr.expect("--addr is required");
    match which.as_str() {
        "ours" => {
            let handle = Server::new(streams::ours::router())
                .serve_http(&addr)
                .await
                .expect("bind");
            handle.stopped().await;
        }
        "jsonrpsee" => {
            let server = jsonrpsee::server::Server::builder()
                .build(&addr)
                .await
                .expect("bind");
            server
                .start(streams::jsonrpsee_api::module())
                .stopped()
                .await;
        }
        "floor" => serve_floor(TcpListener::bind(&addr).await.expect("bind"), false).await,
        "floor-sse" => serve_floor(TcpListener::bind(&addr).await.expect("bind"), true).await,
        other => panic!("unknown server {other}"),
    }
}

async fn serve_floor(listener: TcpListener, sse: bool) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        match sse {
            false => tokio::spawn(floor_connection(stream)),
            true => tokio::spawn(floor_sse_connection(stream)),
        };
    }
}

/// The handshake and the call are read with tokio-tungstenite, once per
/// stream; the items, the part measured, are framed by hand
/// (`floor::push_notification`) and written straight to the socket.
async fn floor_connection(stream: TcpStream) {
    let config = WebSocketConfig::default().read_buffer_size(8 * 1024);
    let Ok(mut ws) = tokio_tungstenite::accept_async_with_config(stream, Some(config)).await else {
        return;
    };
    let Some(Ok(Message::Text(call))) = ws.next().await else {
        return;
    };
    let mut out = Vec::with_capacity(floor::FLUSH_AT + 256);
    let n = match floor::answer(call.as_str()) {
        floor::Answer::Subscribed { reply, n } => {
            floor::push_text_frame(&mut out, reply.as_bytes());
            n
        }
        floor::Answer::Refused(reply) => {
            floor::push_text_frame(&mut out, reply.as_bytes());
            0
        }
    };
    let (head, mut scratch) = (floor::head(), Vec::with_capacity(128));
    let socket = ws.get_mut();
    for item in 0..n {
        floor::push_notification(&mut out, &mut scratch, &head, item);
        if out.len() >= floor::FLUSH_AT {
            if socket.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
    }
    let _ = socket.write_all(&out).await;
    // Held open until the client closes, as a subscription stays open.
    let _ = ws.next().await;
}

/// The Server-Sent Events floor: the request read by hand (its head up to
/// the blank line, then `Content-Length` bytes), one request per
/// connection; the items, the part measured, written as events straight
/// into one chunk of up to [`floor::FLUSH_AT`] bytes, sized in place.
async fn floor_sse_connection(mut stream: TcpStream) {
    let Some(body) = read_request(&mut stream).await else {
        return;
    };
    let Some((id, n)) = floor::count_call(&body) else {
        let reply = floor::REFUSED;
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{reply}",
            reply.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        return;
    };
    if stream.write_all(floor::SSE_HEAD).await.is_err() {
        return;
    }
    let frame = floor::event_frame(&id);
    let mut chunk = floor::new_chunk(floor::FLUSH_AT + 256);
    for item in 0..n {
        floor::push_event(&mut chunk, &frame, item);
        if chunk.len() >= floor::FLUSH_AT {
            floor::seal_chunk(&mut chunk);
            if stream.write_all(&chunk).await.is_err() {
                return;
            }
            chunk.truncate(floor::CHUNK_SIZE_LINE);
        }
    }
    floor::seal_chunk(&mut chunk);
    chunk.extend_from_slice(floor::LAST_CHUNK);
    let _ = stream.write_all(&chunk).await;
    // Held open until the client closes, as a keep-alive connection stays.
    let _ = stream.read(&mut [0; 64]).await;
}

/// The body of the one request on `stream`; `None` if it closes first or
/// the head names no length.
async fn read_request(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(1024);
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if stream.read_buf(&mut buf).await.ok()? == 0 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    while buf.len() < head_end + length {
        if stream.read_buf(&mut buf).await.ok()? == 0 {
            return None;
        }
    }
    buf.drain(..head_end);
    buf.truncate(length);
    Some(buf)
}
