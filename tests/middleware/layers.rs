//! What layers see and do, in-process: order, answering in the handler's
//! place, batches, notifications, unknown methods, extensions, timeouts.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use typed_rpc::Router;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};

use crate::api::{Deny, Identify, Journal, Recorder, Shop, Store};

async fn send(router: &Router, request: Value) -> Option<Value> {
    let text = router.handle(request.to_string().as_bytes()).await?;
    Some(serde_json::from_str(&text).unwrap())
}

fn recorded(journal: &Journal, names: &[&'static str]) -> Router {
    names
        .iter()
        .fold(
            Router::builder().service(Store::default().into_service()),
            |builder, &name| {
                builder.layer(Recorder {
                    name,
                    journal: journal.clone(),
                })
            },
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_first_layer_added_is_the_outermost() {
    let journal = Journal::default();
    let router = recorded(&journal, &["outer", "inner"]);
    let reply = send(
        &router,
        json!({"jsonrpc": "2.0", "method": "add", "params": [1, 2], "id": 7}),
    )
    .await;
    assert_eq!(
        reply.unwrap(),
        json!({"jsonrpc": "2.0", "result": 3, "id": 7})
    );
    assert_eq!(
        journal.lines(),
        [
            "outer before add 7",
            "inner before add 7",
            "inner after add ok",
            "outer after add ok",
        ]
    );
}

#[tokio::test]
async fn a_layer_answers_in_the_handlers_place() {
    let journal = Journal::default();
    let router = Router::builder()
        .service(Store::default().into_service())
        .layer(Recorder {
            name: "outer",
            journal: journal.clone(),
        })
        .layer(Deny { prefix: "buy" })
        .layer(Recorder {
            name: "inner",
            journal: journal.clone(),
        })
        .build()
        .unwrap();
    // The handler's own error is -32042: -32001 is the layer's.
    let reply = send(
        &router,
        json!({"jsonrpc": "2.0", "method": "buy", "params": ["tea"], "id": "b"}),
    )
    .await;
    assert_eq!(
        reply.unwrap(),
        json!({"jsonrpc": "2.0", "error": {"code": -32001, "message": "Unauthorized"}, "id": "b"})
    );
    // Nothing inside the refusing layer saw the call; the outer one saw its error.
    assert_eq!(
        journal.lines(),
        ["outer before buy \"b\"", "outer after buy -32001"]
    );
}

#[tokio::test]
async fn a_batch_passes_call_by_call_and_notifications_without_id() {
    let journal = Journal::default();
    let store = Store::default();
    let router = Router::builder()
        .service(store.clone().into_service())
        .layer(Recorder {
            name: "r",
            journal: journal.clone(),
        })
        .layer(Deny { prefix: "buy" })
        .build()
        .unwrap();
    let batch = json!([
        {"jsonrpc": "2.0", "method": "add", "params": [1, 1], "id": 1},
        {"jsonrpc": "2.0", "method": "bump", "params": [5]},
        {"jsonrpc": "2.0", "method": "buy", "params": ["tea"], "id": 2},
        {"jsonrpc": "2.0", "method": "nope", "id": 3},
    ]);
    let reply = send(&router, batch).await.unwrap();
    assert_eq!(
        reply,
        json!([
            {"jsonrpc": "2.0", "result": 2, "id": 1},
            {"jsonrpc": "2.0", "error": {"code": -32001, "message": "Unauthorized"}, "id": 2},
            {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 3},
        ])
    );
    let mut lines = journal.lines();
    // The entries run concurrently: compare without their interleaving.
    lines.sort();
    assert_eq!(
        lines,
        [
            "r after add ok",
            "r after bump -",
            "r after buy -32001",
            "r after nope -32601",
            "r before add 1",
            "r before bump -",
            "r before buy 2",
            "r before nope 3",
        ]
    );
    assert_eq!(store.total.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn a_refused_notification_is_not_run_and_not_answered() {
    let store = Store::default();
    let router = Router::builder()
        .service(store.clone().into_service())
        .layer(Deny { prefix: "bump" })
        .build()
        .unwrap();
    let reply = send(
        &router,
        json!({"jsonrpc": "2.0", "method": "bump", "params": [5]}),
    )
    .await;
    assert_eq!(reply, None);
    assert_eq!(store.total.load(Ordering::SeqCst), 0);
    // The same batch entry as a request is answered by the layer.
    let reply = send(
        &router,
        json!([{"jsonrpc": "2.0", "method": "bump", "params": [5], "id": 1}]),
    )
    .await;
    assert_eq!(reply.unwrap()[0]["error"]["code"], -32001);
    assert_eq!(store.total.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_layer_hands_the_handler_the_callers_identity() {
    let router = Router::builder()
        .service(Store::default().into_service())
        .layer(Identify { name: "alice" })
        .build()
        .unwrap();
    let whoami = json!({"jsonrpc": "2.0", "method": "whoami", "id": 1});
    assert_eq!(
        send(&router, whoami.clone()).await.unwrap()["result"],
        "alice"
    );
    let bare = Router::new(Store::default().into_service());
    assert_eq!(send(&bare, whoami).await.unwrap()["result"], Value::Null);
}

/// Counts how its calls ended: after the handler, or dropped before.
#[derive(Default)]
pub struct Ends {
    pub finished: AtomicUsize,
    pub dropped: Arc<AtomicUsize>,
}

struct OnDrop(Arc<AtomicUsize>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl CallLayer for Ends {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let guard = OnDrop(self.dropped.clone());
        let reply = next.run(request).await;
        std::mem::forget(guard);
        self.finished.fetch_add(1, Ordering::SeqCst);
        reply
    }
}

#[tokio::test]
async fn a_timed_out_call_drops_the_layers_future() {
    let ends = Arc::new(Ends::default());
    let router = Router::builder()
        .service(Store::default().into_service())
        .layer(ends.clone())
        .request_timeout(Duration::from_millis(20))
        .build()
        .unwrap();
    let reply = send(
        &router,
        json!({"jsonrpc": "2.0", "method": "slow", "params": [5000], "id": 1}),
    )
    .await;
    assert_eq!(reply.unwrap()["error"]["message"], "Request timed out");
    assert_eq!(ends.dropped.load(Ordering::SeqCst), 1);
    assert_eq!(ends.finished.load(Ordering::SeqCst), 0);
    let reply = send(
        &router,
        json!({"jsonrpc": "2.0", "method": "slow", "params": [1], "id": 2}),
    )
    .await;
    assert_eq!(reply.unwrap()["result"], 1);
    assert_eq!(ends.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn rpc_discover_passes_through_the_layers() {
    let journal = Journal::default();
    let discovering = |deny: &'static str| {
        Router::builder()
            .service(Store::default().into_service())
            .discover("Shop", "1.0.0")
            .layer(Recorder {
                name: "r",
                journal: journal.clone(),
            })
            .layer(Deny { prefix: deny })
            .build()
            .unwrap()
    };
    let discover = json!({"jsonrpc": "2.0", "method": "rpc.discover", "id": 1});
    let reply = send(&discovering("admin."), discover.clone())
        .await
        .unwrap();
    assert_eq!(reply["result"]["info"]["title"], "Shop");
    let reply = send(&discovering("rpc."), discover).await.unwrap();
    assert_eq!(reply["error"]["code"], -32001);
    assert_eq!(
        journal.lines(),
        [
            "r before rpc.discover 1",
            "r after rpc.discover ok",
            "r before rpc.discover 1",
            "r after rpc.discover -32001",
        ]
    );
}
