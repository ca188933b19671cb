//! Our clients against our server over TLS: `https://` (HTTP/2 by ALPN),
//! `wss://`, Server-Sent Events over HTTP/2, and a reloaded certificate.

use std::time::Duration;

use futures_util::StreamExt;
use typed_rpc::client::{ClientExt, Params, TransportErrorKind};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::tls::{ReloadableCertificate, TlsConfig};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{ClientError, Router, RpcResult, rpc};

use crate::certs::Authority;
use crate::support::calculator::CalculatorClient;
use crate::{PATIENCE, https_url, serve_https};

fn https_client(url: &str, authority: &Authority) -> HttpClient {
    HttpClient::builder(url)
        .tls(authority.client_tls())
        .timeout(PATIENCE)
        .build()
        .unwrap()
}

/// The calculator served over HTTPS under `limits`, with a certificate of
/// a fresh authority, and our HTTP client of it, which trusts that authority.
async fn https_calculator(limits: Limits) -> (ServerHandle, CalculatorClient<HttpClient>) {
    let authority = Authority::new("test CA");
    let handle = serve_https(limits, authority.server_tls()).await;
    let client = CalculatorClient::new(https_client(&https_url(&handle), &authority));
    (handle, client)
}

#[tokio::test]
async fn our_http_client_calls_over_https() {
    let (handle, client) = https_calculator(Limits::default()).await;
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(
        client.greet("TLS".into(), None).await.unwrap(),
        "Hello, TLS!"
    );
    assert!(handle.shutdown().await);
}

/// Over HTTP/1.1 a second concurrent call needs a second connection, which
/// `max_connections(1)` refuses; over HTTP/2 both are streams of one
/// connection, so both are answered: the client and the server speak h2.
#[tokio::test]
async fn over_http2_concurrent_calls_share_one_connection() {
    let (handle, client) = https_calculator(Limits::default().max_connections(1)).await;
    // The connection is made (and the h2 settings exchanged) first.
    assert_eq!(client.subtract(1, 1).await.unwrap(), 0);
    let calls = (0..4).map(|n| client.slow(200 + n));
    let answers = futures_util::future::join_all(calls).await;
    let answers: Vec<u64> = answers.into_iter().map(Result::unwrap).collect();
    assert_eq!(answers, [200, 201, 202, 203]);
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn our_websocket_client_calls_over_wss() {
    let authority = Authority::new("test CA");
    let handle = serve_https(Limits::default(), authority.server_tls()).await;
    let addr = handle.local_addr().unwrap();
    let connection = WsConnector::new()
        .tls(authority.client_tls())
        .connect(&format!("wss://localhost:{}/", addr.port()))
        .await
        .unwrap()
        .with_timeout(PATIENCE);
    let client = CalculatorClient::new(connection.clone());
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    let sum: i64 = connection
        .call("sum", Some(Params::from_value(&[1, 2, 3]).unwrap()))
        .await
        .unwrap();
    assert_eq!(sum, 6);
    connection.close();
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_server_whose_certificate_our_roots_do_not_sign_is_refused() {
    let ours = Authority::new("ours");
    let theirs = Authority::new("theirs");
    let handle = serve_https(Limits::default(), theirs.server_tls()).await;
    let url = https_url(&handle);
    let client = CalculatorClient::new(https_client(&url, &ours));
    match client.subtract(1, 1).await.unwrap_err() {
        ClientError::Transport(err) => assert_eq!(err.kind(), TransportErrorKind::Connect, "{err}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
    let ws = WsConnector::new()
        .tls(ours.client_tls())
        .connect(&url.replace("https", "wss"))
        .await
        .unwrap_err();
    match ws {
        ClientError::Transport(err) => assert_eq!(err.kind(), TransportErrorKind::Connect, "{err}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
    // Nor do the system's roots sign a certificate made here.
    let system =
        CalculatorClient::new(HttpClient::builder(&url).timeout(PATIENCE).build().unwrap());
    assert!(matches!(
        system.subtract(1, 1).await,
        Err(ClientError::Transport(err)) if err.kind() == TransportErrorKind::Connect
    ));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_reloaded_certificate_is_presented_to_new_connections() {
    let old = Authority::new("old CA");
    let new = Authority::new("new CA");
    let issued = old.issue();
    let certificate =
        ReloadableCertificate::from_pem(issued.cert_pem.as_bytes(), issued.key_pem.as_bytes())
            .unwrap();
    let handle = serve_https(Limits::default(), TlsConfig::from_reloadable(&certificate)).await;
    let url = https_url(&handle);
    let trusting_new = CalculatorClient::new(https_client(&url, &new));
    assert!(
        trusting_new.subtract(1, 1).await.is_err(),
        "the old certificate was presented"
    );

    let renewed = new.issue();
    certificate
        .reload_pem(renewed.cert_pem.as_bytes(), renewed.key_pem.as_bytes())
        .unwrap();
    assert_eq!(trusting_new.subtract(5, 2).await.unwrap(), 3);
    // A reload that fails leaves the renewed certificate in place.
    assert!(certificate.reload_pem(b"garbage", b"garbage").is_err());
    let another = CalculatorClient::new(https_client(&url, &new));
    assert_eq!(another.subtract(7, 2).await.unwrap(), 5);
    assert!(handle.shutdown().await);
}

/// A streaming method, for Server-Sent Events over HTTP/2.
#[rpc]
pub trait Counter {
    /// The numbers `0..to`, one event each, `every_ms` apart.
    #[method(name = "count", stream)]
    async fn count(
        &self,
        to: u64,
        every_ms: u64,
    ) -> RpcResult<impl futures_util::Stream<Item = RpcResult<u64>> + Send + 'static>;
}

pub struct Counting;

impl Counter for Counting {
    async fn count(
        &self,
        to: u64,
        every_ms: u64,
    ) -> RpcResult<impl futures_util::Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(futures_util::stream::iter(0..to).then(move |n| async move {
            tokio::time::sleep(Duration::from_millis(every_ms)).await;
            Ok(n)
        }))
    }
}

/// The counter over HTTPS.
pub async fn serve_counter(authority: &Authority) -> typed_rpc::transport::ServerHandle {
    Server::new(Router::new(Counting.into_service()))
        .serve_https("127.0.0.1:0", authority.server_tls())
        .await
        .unwrap()
}

#[tokio::test]
async fn server_sent_events_stream_over_http2() {
    let authority = Authority::new("test CA");
    let handle = serve_counter(&authority).await;
    let client = CounterClient::new(https_client(&https_url(&handle), &authority));
    // Two streams at once, on the one HTTP/2 connection.
    let (first, second) = tokio::join!(client.count(4, 10), client.count(3, 15));
    let (mut first, mut second) = (first.unwrap(), second.unwrap());
    let mut seen = (Vec::new(), Vec::new());
    while let Some(item) = first.next().await {
        seen.0.push(item.unwrap());
    }
    while let Some(item) = second.next().await {
        seen.1.push(item.unwrap());
    }
    assert_eq!(seen, (vec![0, 1, 2, 3], vec![0, 1, 2]));
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_graceful_shutdown_lets_an_http2_call_in_flight_answer() {
    let (handle, client) = https_calculator(Limits::default()).await;
    assert_eq!(client.subtract(1, 1).await.unwrap(), 0);
    let slow = tokio::spawn(async move { client.slow(300).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        handle.shutdown().await,
        "the shutdown waited past its deadline"
    );
    assert_eq!(slow.await.unwrap().unwrap(), 300);
}
