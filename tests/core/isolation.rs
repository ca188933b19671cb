//! A handler's panic stays with its own request, and the entries of a batch
//! run side by side.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::{call, code_of, result_of, send};
use serde_json::Value;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Fragile {
    /// Panics while running.
    #[method(name = "boom")]
    async fn boom(&self, why: String) -> RpcResult<i64>;

    /// Panics after it has been suspended once.
    #[method(name = "boom_later")]
    async fn boom_later(&self) -> RpcResult<i64>;

    /// Panics before it returns its future (the impl is a plain `fn`).
    #[method(name = "boom_early")]
    async fn boom_early(&self) -> RpcResult<i64>;

    /// Its param's `Deserialize` impl panics while the params are decoded.
    #[method(name = "boom_decoding")]
    async fn boom_decoding(&self, touchy: Touchy) -> RpcResult<i64>;

    /// A notification that panics.
    #[notification(name = "boom_quietly")]
    async fn boom_quietly(&self);

    #[method(name = "double")]
    async fn double(&self, x: i64) -> RpcResult<i64>;

    /// Sleeps `ms` milliseconds, then answers `x`.
    #[method(name = "slow")]
    async fn slow(&self, x: i64, ms: u64) -> RpcResult<i64>;

    /// Counts its calls.
    #[notification(name = "count")]
    async fn count(&self);
}

/// A param type whose decoding panics.
#[derive(serde::Serialize)]
pub struct Touchy;

impl<'de> serde::Deserialize<'de> for Touchy {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        panic!("while decoding");
    }
}

#[derive(Clone, Default)]
struct Service {
    counted: Arc<AtomicUsize>,
}

impl Fragile for Service {
    async fn boom(&self, why: String) -> RpcResult<i64> {
        panic!("{why}");
    }

    async fn boom_later(&self) -> RpcResult<i64> {
        tokio::task::yield_now().await;
        panic!("after a yield");
    }

    #[allow(unreachable_code)]
    fn boom_early(&self) -> impl Future<Output = RpcResult<i64>> + Send {
        panic!("before the future exists");
        std::future::ready(Ok(0))
    }

    async fn boom_decoding(&self, _: Touchy) -> RpcResult<i64> {
        Ok(0)
    }

    async fn boom_quietly(&self) {
        panic!("in a notification");
    }

    async fn double(&self, x: i64) -> RpcResult<i64> {
        Ok(2 * x)
    }

    async fn slow(&self, x: i64, ms: u64) -> RpcResult<i64> {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(x)
    }

    async fn count(&self) {
        self.counted.fetch_add(1, Ordering::SeqCst);
    }
}

fn router() -> (Router, Service) {
    let service = Service::default();
    (Router::new(service.clone().into_service()), service)
}

/// The id and outcome of each entry of a batch reply, sorted by id.
fn by_id(reply: &Value) -> Vec<(i64, Result<Value, i64>)> {
    let mut entries: Vec<_> = reply
        .as_array()
        .unwrap_or_else(|| panic!("expected a batch reply: {reply}"))
        .iter()
        .map(|r| {
            let id = r["id"].as_i64().unwrap_or_else(|| panic!("id: {r}"));
            let outcome = match r.get("error") {
                Some(_) => Err(code_of(r)),
                None => Ok(result_of(r).clone()),
            };
            (id, outcome)
        })
        .collect();
    entries.sort_by_key(|(id, _)| *id);
    entries
}

#[tokio::test]
async fn a_panicking_handler_answers_internal_error_and_the_router_keeps_serving() {
    let (router, service) = router();
    for request in [
        r#"{"jsonrpc":"2.0","method":"boom","params":["on purpose"],"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"boom_later","id":1}"#,
        r#"{"jsonrpc":"2.0","method":"boom_early","id":1}"#,
        r#"{"jsonrpc":"2.0","method":"boom_decoding","params":[{}],"id":1}"#,
    ] {
        let reply = call(&router, request).await;
        assert_eq!(code_of(&reply), -32603, "{request} -> {reply}");
        assert_eq!(reply["id"], 1, "{reply}");

        // The same router, and a clone of it, go on answering.
        let next = r#"{"jsonrpc":"2.0","method":"double","params":[21],"id":2}"#;
        assert_eq!(result_of(&call(&router, next).await), 42);
        assert_eq!(result_of(&call(&router.clone(), next).await), 42);
    }

    // A panicking notification is not answered, and nothing else is disturbed.
    let reply = send(&router, r#"{"jsonrpc":"2.0","method":"boom_quietly"}"#).await;
    assert_eq!(reply, None);
    send(&router, r#"{"jsonrpc":"2.0","method":"count"}"#).await;
    assert_eq!(service.counted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_panic_in_a_batch_fails_only_its_own_entry() {
    let (router, service) = router();
    let reply = call(
        &router,
        r#"[
            {"jsonrpc":"2.0","method":"double","params":[1],"id":1},
            {"jsonrpc":"2.0","method":"boom","params":["in a batch"],"id":2},
            {"jsonrpc":"2.0","method":"slow","params":[3, 20],"id":3},
            {"jsonrpc":"2.0","method":"boom_later","id":4},
            {"jsonrpc":"2.0","method":"boom_quietly"},
            {"jsonrpc":"2.0","method":"count"},
            {"jsonrpc":"2.0","method":"boom_early","id":5},
            {"jsonrpc":"2.0","method":"double","params":[3],"id":6},
            {"jsonrpc":"2.0","method":"boom_decoding","params":[1],"id":7}
        ]"#,
    )
    .await;
    assert_eq!(
        by_id(&reply),
        [
            (1, Ok(2.into())),
            (2, Err(-32603)),
            (3, Ok(3.into())),
            (4, Err(-32603)),
            (5, Err(-32603)),
            (6, Ok(6.into())),
            (7, Err(-32603)),
        ],
        "{reply}"
    );
    assert_eq!(service.counted.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_entries_of_a_batch_run_concurrently() {
    let (router, _) = router();
    let batch: Vec<String> = (0..20)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","method":"slow","params":[{i}, 50],"id":{i}}}"#))
        .collect();
    let request = format!("[{}]", batch.join(","));

    let started = Instant::now();
    let reply = call(&router, &request).await;
    let elapsed = started.elapsed();

    // One after another, 20 sleeps of 50 ms take a second.
    assert!(
        elapsed < Duration::from_millis(500),
        "a batch of 20 calls that each sleep 50 ms took {elapsed:?}"
    );
    let expected: Vec<_> = (0..20).map(|i| (i, Ok(i.into()))).collect();
    assert_eq!(by_id(&reply), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_messages_on_clones_of_one_router_are_independent() {
    let (router, _) = router();
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let router = router.clone();
            tokio::spawn(async move {
                let method = if i % 3 == 0 { "boom_later" } else { "slow" };
                let request = format!(
                    r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":{i}}}"#,
                    params = if i % 3 == 0 {
                        "[]".to_owned()
                    } else {
                        format!("[{i}, 50]")
                    },
                );
                call(&router, &request).await
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        let reply = task.await.expect("the task itself must not panic");
        assert_eq!(reply["id"], i, "{reply}");
        if i % 3 == 0 {
            assert_eq!(code_of(&reply), -32603, "{reply}");
        } else {
            assert_eq!(result_of(&reply), i, "{reply}");
        }
    }
}

#[tokio::test]
async fn a_handler_past_the_request_timeout_answers_alone_and_is_dropped() {
    let service = Service::default();
    let router = Router::builder()
        .service(service.into_service())
        .request_timeout(Duration::from_millis(100))
        .build()
        .unwrap();

    let reply = call(
        &router,
        r#"{"jsonrpc":"2.0","method":"slow","params":[1,60000],"id":1}"#,
    )
    .await;
    assert_eq!(code_of(&reply), -32603);
    assert_eq!(reply["error"]["message"], "Request timed out");
    assert_eq!(reply["id"], 1);

    // In a batch, only the late entry times out; the others are answered.
    let started = Instant::now();
    let reply = call(
        &router,
        r#"[{"jsonrpc":"2.0","method":"slow","params":[2,60000],"id":2},
            {"jsonrpc":"2.0","method":"slow","params":[3,10],"id":3},
            {"jsonrpc":"2.0","method":"double","params":[4],"id":4}]"#,
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the late entry was given up on"
    );
    assert_eq!(
        by_id(&reply),
        [
            (2, Err(-32603)),
            (3, Ok(Value::from(3))),
            (4, Ok(Value::from(8)))
        ]
    );
}
