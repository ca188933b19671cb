//! One typed batch on every transport: success, an application error, an
//! unknown method and notifications, each result where its call was.

use std::time::Duration;

use typed_rpc::client::{InProcess, Transport};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server as RpcServer, ServerHandle};
use typed_rpc::{CallError, ClientError, ErrorObject, code};

use crate::api::{NewerStoreClient, Server, StoreClient, StoreError, router};
use crate::connect;

/// The server's limit in these tests.
const MAX_BATCH_LEN: usize = 8;

async fn check_batch<T: Transport + Clone>(transport: T) {
    let store = StoreClient::new(transport.clone());
    let mut batch = store.batch();
    let apple = batch.get("a".into());
    batch.bump(2);
    let sum = batch.add(40, 2);
    let missing = batch.get("b".into());
    batch.bump(3);
    let replies = batch.await.unwrap();
    // Read in any order: each handle knows its place.
    let missing: Result<String, CallError<StoreError>> = replies.get(missing);
    assert_eq!(
        missing.unwrap_err().app_error(),
        Some(&StoreError::NotFound { key: "b".into() })
    );
    assert_eq!(replies.get(apple).unwrap(), "apple");
    let sum: Result<i64, ClientError> = replies.get(sum);
    assert_eq!(sum.unwrap(), 42);

    // The notifications ran; a later call sees them.
    let mut total = 0;
    for _ in 0..100 {
        total = store.total().await.unwrap();
        if total == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(total, 5, "both notifications of the batch arrive");

    // A method the server lacks is its own -32601, beside the others' results.
    let newer = NewerStoreClient::new(transport.clone());
    let mut batch = newer.batch();
    let compact = batch.compact();
    let apple = batch.get("a".into());
    let total = batch.total();
    let replies = batch.await.unwrap();
    let err = replies.get(compact).unwrap_err();
    assert!(err.app_error().is_none());
    assert_eq!(
        err.rpc_error().map(ErrorObject::code),
        Some(code::METHOD_NOT_FOUND)
    );
    assert_eq!(replies.get(apple).unwrap(), "apple");
    assert!(replies.get(total).unwrap() >= 5);

    // A batch of notifications only gets no reply, and needs none.
    let mut batch = store.batch();
    batch.bump(0);
    batch.await.unwrap();

    // An empty batch is not sent at all.
    store.batch().await.unwrap();
}

/// Longer than the server's limit: refused whole, with the server's reason.
///
/// Checked where the refusal comes back as the reply to the batch (HTTP, in
/// process). On a duplex connection (WebSocket, TCP) the refusal has id
/// `null`, which the connection matches to no call, so today the batch
/// waits for its timeout: see the branch's report.
async fn check_batch_limit<T: Transport>(transport: T) {
    let store = StoreClient::new(transport);
    let mut batch = store.batch();
    let calls: Vec<_> = (0..=MAX_BATCH_LEN as i64)
        .map(|i| batch.add(i, 1))
        .collect();
    let err = batch.await.unwrap_err();
    assert_eq!(
        err.rpc_error().map(ErrorObject::code),
        Some(code::INVALID_REQUEST),
        "{err}"
    );
    assert_eq!(calls.len(), MAX_BATCH_LEN + 1);
}

fn server() -> RpcServer {
    RpcServer::new(router(&Server::default(), MAX_BATCH_LEN))
}

async fn serve_http() -> ServerHandle {
    server().serve_http("127.0.0.1:0").await.unwrap()
}

#[tokio::test]
async fn in_process() {
    let transport = InProcess::new(router(&Server::default(), MAX_BATCH_LEN));
    check_batch(transport.clone()).await;
    check_batch_limit(transport).await;
}

#[tokio::test]
async fn http() {
    let handle = serve_http().await;
    let client = connect::http(&handle);
    check_batch(client.clone()).await;
    check_batch_limit(client).await;
    handle.shutdown().await;
}

#[tokio::test]
async fn websocket() {
    let handle = serve_http().await;
    check_batch(connect::websocket(&handle).await).await;
    handle.shutdown().await;
}

#[tokio::test]
async fn tcp() {
    let handle = server()
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap();
    check_batch(connect::tcp(&handle).await).await;
    handle.shutdown().await;
}
