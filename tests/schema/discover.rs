//! `rpc.discover`: answered with the router's document when enabled.

use serde_json::{Value, json};
use typed_rpc::Router;

use super::calculator_api::{Calc, Calculator as _};
use super::catalog::{Catalog as _, Shop};

fn discovering() -> Router {
    Router::builder()
        .service(Calc::default().into_service())
        .service(Shop.into_service())
        .discover("Shop", "3.0.0")
        .build()
        .unwrap()
}

async fn call(router: &Router, request: &str) -> Value {
    let reply = router.handle(request.as_bytes()).await.expect("a reply");
    serde_json::from_str(&reply).expect("JSON")
}

#[tokio::test]
async fn rpc_discover_answers_the_document_of_every_service() {
    let router = discovering();
    let expected = router.openrpc("Shop", "3.0.0").to_json();
    for params in ["", r#","params":[]"#, r#","params":{}"#] {
        let request = format!(r#"{{"jsonrpc":"2.0","method":"rpc.discover"{params},"id":7}}"#);
        let reply = call(&router, &request).await;
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["result"], expected, "with {params:?}");
    }
    // The other methods are served as before.
    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
    )
    .await;
    assert_eq!(reply["result"], 19);
}

#[tokio::test]
async fn rpc_discover_takes_no_params_and_a_notification_of_it_is_not_answered() {
    let router = discovering();
    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"rpc.discover","params":[1],"id":1}"#,
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(
        reply["error"]["data"],
        json!({"reason": "rpc.discover takes no params"})
    );
    let silent = router
        .handle(br#"{"jsonrpc":"2.0","method":"rpc.discover"}"#)
        .await;
    assert_eq!(silent, None);
    // In a batch, beside other calls.
    let batch = call(
        &router,
        r#"[{"jsonrpc":"2.0","method":"rpc.discover","id":1},{"jsonrpc":"2.0","method":"total","id":2}]"#,
    )
    .await;
    let replies = batch.as_array().unwrap();
    assert_eq!(replies.len(), 2);
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 1 && r["result"]["openrpc"] == "1.3.2")
    );
}

#[tokio::test]
async fn without_discover_the_method_does_not_exist() {
    let router = Router::new(Calc::default().into_service());
    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#,
    )
    .await;
    assert_eq!(reply["error"]["code"], -32601);
}
