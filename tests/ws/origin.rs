//! The `Origin` of WebSocket handshakes: what a page on another site may
//! open, with and without a `Cors`.

use std::net::SocketAddr;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use typed_rpc::transport::http::Cors;
use typed_rpc::transport::{Limits, ServerHandle};

use crate::support;
use crate::support::calculator::{Calc, server_of};

async fn serve(cors: Option<Cors>) -> (ServerHandle, SocketAddr) {
    let mut server = server_of(Calc::default(), Limits::default());
    if let Some(cors) = cors {
        server = server.cors(cors);
    }
    let handle = server.serve_http("127.0.0.1:0").await.unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

/// The status a handshake to `addr` with `Host: host` and `origin` gets.
async fn handshake(addr: SocketAddr, host: &str, origin: Option<&str>) -> u16 {
    let origin = origin.map_or(String::new(), |origin| format!("Origin: {origin}\r\n"));
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    let head = support::raw::read_head(&mut tcp).await;
    head[9..12].parse().unwrap()
}

#[tokio::test]
async fn by_default_only_the_servers_own_origin_and_non_browsers_may_open_one() {
    let (handle, addr) = serve(None).await;
    let host = addr.to_string();
    assert_eq!(
        handshake(addr, &host, None).await,
        101,
        "no Origin: not a browser"
    );
    let own = format!("http://{addr}");
    assert_eq!(
        handshake(addr, &host, Some(&own)).await,
        101,
        "the server's own origin"
    );
    for other in [
        "http://evil.example",
        &format!("http://127.0.0.1:{}", addr.port() + 1),
        &format!("http://localhost:{}", addr.port()),
        "null",
    ] {
        assert_eq!(handshake(addr, &host, Some(other)).await, 403, "{other}");
    }
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_cors_allows_its_origins_and_refuses_the_others() {
    let cors = Cors::allow_origins(["http://app.example:8080"]).unwrap();
    let (handle, addr) = serve(Some(cors)).await;
    let host = addr.to_string();
    assert_eq!(
        handshake(addr, &host, Some("http://app.example:8080")).await,
        101
    );
    assert_eq!(
        handshake(addr, &host, Some(&format!("http://{addr}"))).await,
        101
    );
    assert_eq!(
        handshake(addr, &host, Some("http://app.example:8081")).await,
        403
    );
    assert_eq!(handshake(addr, &host, None).await, 101);
    assert!(handle.shutdown().await);

    let (handle, addr) = serve(Some(Cors::allow_any_origin())).await;
    assert_eq!(
        handshake(addr, &addr.to_string(), Some("http://evil.example")).await,
        101
    );
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn the_refusal_says_why_and_keeps_the_connection_http() {
    let (handle, addr) = serve(None).await;
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://evil.example\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    let head = support::raw::read_head(&mut tcp).await.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 403 "), "{head}");
    assert!(!head.contains("upgrade: websocket"), "{head}");
    assert!(head.contains("content-length: 38"), "{head}");
    assert!(handle.shutdown().await);
}
