//! A server of the streaming benchmark API (`typed_rpc_bench::streams`):
//!
//! ```text
//! stream_server ours --addr 127.0.0.1:9311        # SSE and WebSocket on one port
//! stream_server jsonrpsee --addr 127.0.0.1:9211   # WebSocket subscriptions
//! stream_server floor --addr 127.0.0.1:9111       # WebSocket, hand-written frames
//! ```
//!
//! One current-thread tokio runtime (the driver pins the process to one CPU).

use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
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
        "floor" => serve_floor(TcpListener::bind(&addr).await.expect("bind")).await,
        other => panic!("unknown server {other}"),
    }
}

async fn serve_floor(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(floor_connection(stream));
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
