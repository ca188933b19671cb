//! Layers on every transport: HTTP, WebSocket and TCP, a subscription an
//! auth layer refuses, and a call its peer cancels.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use typed_rpc::client::Transport;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc::{CancelPolicy, Router};

use crate::api::{Caller, Deny, Journal, Recorder, Shop, ShopClient, Store};
use crate::connect::{self, PATIENCE};
use crate::layers::Ends;

/// Names the caller by its transport and whether its address is known.
struct ByTransport;

impl CallLayer for ByTransport {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let cx = request.context();
        let name = format!("{} {}", cx.transport(), cx.remote_addr().is_some());
        request.context_mut().extensions_mut().insert(Caller(name));
        next.run(request).await
    }
}

fn router(journal: &Journal) -> Router {
    Router::builder()
        .service(Store::default().into_service())
        .layer(Recorder {
            name: "r",
            journal: journal.clone(),
        })
        .layer(Deny { prefix: "buy" })
        .layer(Deny { prefix: "ticks" })
        .layer(ByTransport)
        .build()
        .unwrap()
}

/// What every transport must show: the call passes through the layers,
/// the refusal is the layer's, the handler sees the layer's extension, a
/// notification passes without id.
async fn check<T: Transport>(client: ShopClient<T>, journal: &Journal, transport: &str) {
    assert_eq!(client.add(2, 3).await.unwrap(), 5);
    let refused = client.buy("tea".into()).await.unwrap_err();
    assert_eq!(refused.rpc_error().unwrap().code(), -32001);
    assert_eq!(
        client.whoami().await.unwrap().as_deref(),
        Some(format!("{transport} true").as_str())
    );
    client.bump(4).await.unwrap();
    // Over a connection the notification runs in order with what follows.
    if transport != "http" {
        assert_eq!(client.total().await.unwrap(), 4);
    }
    let lines = journal.lines();
    for expected in [
        "r after add ok",
        "r after buy -32001",
        "r before bump -",
        "r after bump -",
    ] {
        assert!(
            lines.iter().any(|line| line == expected),
            "{expected} in {lines:?}"
        );
    }
}

async fn serve_http(router: Router) -> ServerHandle {
    Server::new(router).serve_http("127.0.0.1:0").await.unwrap()
}

async fn serve_tcp(router: Router) -> ServerHandle {
    Server::new(router)
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap()
}

#[tokio::test]
async fn layers_wrap_calls_over_http() {
    let journal = Journal::default();
    let handle = serve_http(router(&journal)).await;
    check(ShopClient::new(connect::http(&handle)), &journal, "http").await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn layers_wrap_calls_over_websocket() {
    let journal = Journal::default();
    let handle = serve_http(router(&journal)).await;
    check(
        ShopClient::new(connect::websocket(&handle).await),
        &journal,
        "websocket",
    )
    .await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn layers_wrap_calls_over_tcp() {
    let journal = Journal::default();
    let handle = serve_tcp(router(&journal)).await;
    check(
        ShopClient::new(connect::tcp(&handle).await),
        &journal,
        "tcp",
    )
    .await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn an_auth_layer_refuses_a_subscription() {
    let journal = Journal::default();
    let handle = serve_http(router(&journal)).await;
    let client = ShopClient::new(connect::websocket(&handle).await);
    let Err(refused) = client.ticks(3).await else {
        panic!("the subscription is refused");
    };
    assert_eq!(refused.rpc_error().unwrap().code(), -32001);

    // Without the refusal, the same subscription streams through the layers.
    let open = Router::builder()
        .service(Store::default().into_service())
        .layer(Recorder {
            name: "r",
            journal: journal.clone(),
        })
        .build()
        .unwrap();
    let handle = serve_http(open).await;
    let client = ShopClient::new(connect::websocket(&handle).await);
    let mut items = client.ticks(3).await.unwrap();
    let mut seen = Vec::new();
    while let Some(item) = tokio::time::timeout(PATIENCE, items.next()).await.unwrap() {
        seen.push(item.unwrap());
    }
    assert_eq!(seen, [0, 1, 2]);
    assert!(
        journal
            .lines()
            .iter()
            .any(|line| line.starts_with("r before ticks"))
    );
}

#[tokio::test]
async fn a_cancelled_call_drops_the_layers_future() {
    let ends = Arc::new(Ends::default());
    let router = Router::builder()
        .service(Store::default().into_service())
        .layer(ends.clone())
        .cancel_notification(CancelPolicy::lsp())
        .build()
        .unwrap();
    let handle = serve_tcp(router).await;
    let stream = TcpStream::connect(handle.local_addr().unwrap())
        .await
        .unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    for message in [
        json!({"jsonrpc": "2.0", "method": "slow", "params": [5000], "id": 1}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}),
    ] {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let line = tokio::time::timeout(PATIENCE, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(reply["error"]["code"], -32800);
    assert_eq!(ends.dropped.load(Ordering::SeqCst), 1);
    assert_eq!(ends.finished.load(Ordering::SeqCst), 0);
    drop((lines, write));
    assert!(handle.shutdown().await);
}
