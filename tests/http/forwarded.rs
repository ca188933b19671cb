//! The client's address behind a trusted reverse proxy.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{Context, Router, RpcResult, rpc};

#[rpc]
pub trait Peer {
    /// The caller's address as the handler sees it.
    #[method(name = "peer")]
    async fn peer(&self, #[context] cx: &Context) -> RpcResult<String>;
}

struct Echo;

impl Peer for Echo {
    async fn peer(&self, cx: &Context) -> RpcResult<String> {
        Ok(cx
            .remote_addr()
            .map(|addr| addr.to_string())
            .unwrap_or_default())
    }
}

async fn serve(limits: Limits) -> ServerHandle {
    Server::new(Router::new(Echo.into_service()))
        .limits(limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

/// What `peer` answers to a `POST` carrying `header`.
async fn seen(handle: &ServerHandle, header: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","method":"peer","id":1}"#;
    let mut stream = tokio::net::TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let request = format!(
        "POST / HTTP/1.0\r\ncontent-type: application/json\r\n{header}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    let reply: serde_json::Value =
        serde_json::from_str(raw.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    reply["result"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_trusted_proxy_s_forwarded_address_is_the_caller_s() {
    let limits = Limits::default().trust_forwarded_from(["127.0.0.1".parse().unwrap()]);
    let handle = serve(limits).await;
    assert_eq!(
        seen(&handle, "x-forwarded-for: 198.51.100.4").await,
        "198.51.100.4:0"
    );
    assert_eq!(
        seen(&handle, "forwarded: for=\"198.51.100.5:4711\";proto=http").await,
        "198.51.100.5:4711"
    );
}

#[tokio::test]
async fn without_trust_the_headers_are_ignored() {
    let handle = serve(Limits::default()).await;
    let seen = seen(&handle, "x-forwarded-for: 198.51.100.4").await;
    assert!(seen.starts_with("127.0.0.1:"), "{seen}");
    let other = Limits::default().trust_forwarded_from(["10.9.9.9".parse().unwrap()]);
    let handle = serve(other).await;
    let seen = self::seen(&handle, "x-forwarded-for: 198.51.100.4").await;
    assert!(
        seen.starts_with("127.0.0.1:"),
        "a proxy not trusted is not believed: {seen}"
    );
}
