//! The floor as a network server: a bare hyper 1 HTTP/1.1 server and a bare
//! tokio-tungstenite WebSocket server (8 KiB read buffer) around `typed_rpc_bench::floor::handle`,
//! with no framework in between.
//!
//! ```text
//! server_floor --http 127.0.0.1:9101 --ws 127.0.0.1:9102
//! ```
//!
//! One current-thread tokio runtime (the runner pins the process to one CPU).

use std::convert::Infallible;

use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use typed_rpc_bench::floor;

const MAX_BODY: usize = 10 << 20;

fn plain(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

/// The body whole, or `None` past `MAX_BODY` (or on a read error). By
/// hand, as typed-rpc does it: the first chunk kept as it came, a buffer
/// only from a second one; `Limited` + `collect` keep a queue of chunks and
/// a trailer map for every body (about 500 instructions per request more).
async fn read_body(mut body: Incoming) -> Option<Bytes> {
    let (mut first, mut joined) = (Bytes::new(), Vec::new());
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.ok()?.into_data() else {
            continue;
        };
        if first.len() + joined.len() + data.len() > MAX_BODY {
            return None;
        }
        if first.is_empty() && joined.is_empty() {
            first = data;
        } else {
            if joined.is_empty() {
                joined.extend_from_slice(&first);
            }
            joined.extend_from_slice(&data);
        }
    }
    Some(if joined.is_empty() {
        first
    } else {
        joined.into()
    })
}

async fn http(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.method() != Method::POST {
        return Ok(plain(StatusCode::METHOD_NOT_ALLOWED));
    }
    let Some(body) = read_body(request.into_body()).await else {
        return Ok(plain(StatusCode::PAYLOAD_TOO_LARGE));
    };
    Ok(match floor::handle(&body) {
        Some(reply) => Response::builder()
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(reply)))
            .expect("a valid response"),
        None => plain(StatusCode::NO_CONTENT),
    })
}

async fn serve_http(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(http))
                .await;
        });
    }
}

/// tungstenite's defaults but for the read buffer: 8 KiB instead of 128 KiB,
/// which tungstenite zero-fills on every read (measured: 214 000 instructions
/// per request at C = 16 with the default, and 134 KiB per idle connection).
/// The floor is the cheapest correct server, so it gets the cheap setting;
/// typed-rpc uses the same one.
fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(8 * 1024)
}

async fn serve_ws(listener: TcpListener) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let Ok(mut ws) =
                tokio_tungstenite::accept_async_with_config(stream, Some(ws_config())).await
            else {
                return;
            };
            while let Some(Ok(message)) = ws.next().await {
                let reply = match &message {
                    Message::Text(text) => floor::handle(text.as_bytes()),
                    Message::Binary(bytes) => floor::handle(bytes),
                    Message::Close(_) => break,
                    // tungstenite answers pings itself.
                    _ => None,
                };
                if let Some(reply) = reply
                    && ws.send(Message::text(reply)).await.is_err()
                {
                    break;
                }
            }
        });
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut http_addr, mut ws_addr) = (None, None);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--http" => http_addr = args.next(),
            "--ws" => ws_addr = args.next(),
            other => panic!("unknown argument {other}"),
        }
    }
    let http_listener = match http_addr {
        Some(addr) => Some(TcpListener::bind(addr).await.expect("bind --http")),
        None => None,
    };
    let ws_listener = match ws_addr {
        Some(addr) => Some(TcpListener::bind(addr).await.expect("bind --ws")),
        None => None,
    };
    let http_task = http_listener.map(|l| tokio::spawn(serve_http(l)));
    let ws_task = ws_listener.map(|l| tokio::spawn(serve_ws(l)));
    for task in [http_task, ws_task].into_iter().flatten() {
        let _ = task.await;
    }
}
