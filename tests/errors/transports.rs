//! The round trip on every transport: in-process, HTTP, WebSocket, TCP.

use std::error::Error;

use serde_json::{Value, json};
use typed_rpc::client::{ClientExt, InProcess, Params, Transport};
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc::{CallError, ClientError, ErrorObject};

use crate::api::{KvAdminClient, KvClient, KvError, router};
use crate::connect;

/// What a user checks on any transport: each variant typed back, the wire
/// object behind it, and the layers that are not the application's.
async fn check_round_trip<T: Transport + Clone>(transport: T) {
    let kv = KvClient::new(transport.clone());

    let err = kv.get("a".into()).await.unwrap_err();
    assert_eq!(
        err.app_error(),
        Some(&KvError::NotFound {
            key: "a".into(),
            similar: Some("as".into())
        })
    );
    assert!(
        err.rpc_error().is_none(),
        "an application error is not left untyped"
    );
    assert!(matches!(
        kv.get("full".into()).await,
        Err(CallError::App(KvError::StoreFull(100)))
    ));
    match kv
        .get("conflict".into())
        .await
        .unwrap_err()
        .into_app_error()
    {
        Ok(KvError::Conflict(key, version)) => assert_eq!((key.as_str(), version), ("conflict", 7)),
        other => panic!("expected the conflict, got {other:?}"),
    }
    assert!(matches!(
        kv.get("readonly".into()).await,
        Err(CallError::App(KvError::ReadOnly))
    ));

    // The wire object behind the typed variant, as an untyped caller sees it.
    let object = kv_get_error(&transport, "a").await;
    assert_eq!((object.code(), object.message()), (1001, "Key not found"));
    assert_eq!(
        object.data_as::<Value>().unwrap().unwrap(),
        json!({"key": "a", "similar": "as"})
    );
    let object = kv_get_error(&transport, "readonly").await;
    assert_eq!((object.code(), object.message()), (-32001, "Read only"));
    assert!(object.data().is_none(), "a unit variant has no data");

    // A protocol error is not one of the type's: it stays an error object.
    let admin = KvAdminClient::new(transport.clone());
    let err: CallError<KvError> = admin.compact().await.unwrap_err();
    assert!(err.app_error().is_none());
    assert_eq!(err.rpc_error().map(ErrorObject::code), Some(-32601));

    // A method returning `RpcResult` keeps the untyped error.
    let len: Result<u64, ClientError> = kv.len().await;
    assert_eq!(len.unwrap(), 0);
}

/// The error object an untyped `kv_get` of `key` fails with.
async fn kv_get_error<T: Transport>(transport: &T, key: &str) -> ErrorObject {
    let params = Params::from_value(&(key,)).unwrap();
    let err = transport
        .call::<String>("kv_get", Some(params))
        .await
        .unwrap_err();
    err.rpc_error()
        .cloned()
        .unwrap_or_else(|| panic!("not an error object: {err}"))
}

#[tokio::test]
async fn in_process() {
    check_round_trip(InProcess::new(router())).await;
}

async fn http_server() -> ServerHandle {
    Server::new(router())
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

#[tokio::test]
async fn http() {
    let handle = http_server().await;
    let client = connect::http(&handle);
    check_round_trip(client).await;
    handle.shutdown().await;
}

#[tokio::test]
async fn websocket() {
    let handle = http_server().await;
    check_round_trip(connect::websocket(&handle).await).await;
    handle.shutdown().await;
}

#[tokio::test]
async fn tcp() {
    let handle = Server::new(router())
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap();
    check_round_trip(connect::tcp(&handle).await).await;
    handle.shutdown().await;
}

/// `?` takes a `CallError<E>` into `Box<dyn Error>` (it is an `Error` when
/// `E` is), with the variant as its source, and into `ClientError`, where the
/// variant is the object it travelled as.
#[tokio::test]
async fn a_call_error_converts_with_the_question_mark() {
    async fn boxed(kv: &KvClient<InProcess>) -> Result<String, Box<dyn Error + Send + Sync>> {
        Ok(kv.get("full".into()).await?)
    }
    async fn untyped(kv: &KvClient<InProcess>) -> Result<String, ClientError> {
        Ok(kv.get("full".into()).await?)
    }
    let kv = KvClient::new(InProcess::new(router()));
    let err = boxed(&kv).await.unwrap_err();
    let source = err.source().unwrap().downcast_ref::<KvError>();
    assert_eq!(source, Some(&KvError::StoreFull(100)), "{err}");
    let err = untyped(&kv).await.unwrap_err();
    assert_eq!(err.rpc_error().map(ErrorObject::code), Some(1002));
}
