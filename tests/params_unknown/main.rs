//! Unknown members of a `#[params]` struct: refused with `-32602` naming
//! the param, the JSON pointer and the reason (at any depth), with no
//! attribute on the user's struct; accepted where `allow_unknown_params`
//! is set on the method or the trait.

#[path = "../support/mod.rs"]
mod support;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::{call, code_of, error_of, result_of};
use typed_rpc::{Router, RpcResult, rpc};

/// Plain serde structs: nothing on them asks for unknown fields to be refused.
#[derive(Serialize, Deserialize)]
struct Batch {
    entries: Vec<Entry>,
    label: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    value: Option<i64>,
}

#[rpc]
trait Store {
    /// How many entries were put.
    #[method(name = "put")]
    async fn put(&self, #[params] batch: Batch) -> RpcResult<usize>;

    /// The same, taking whatever else comes.
    #[method(name = "put_lenient", allow_unknown_params)]
    async fn put_lenient(&self, #[params] batch: Batch) -> RpcResult<usize>;

    /// The sum of the values, variadic.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// Any JSON at all.
    #[method(name = "echo")]
    async fn echo(&self, #[params] value: Value) -> RpcResult<Value>;
}

/// The same API, lenient as a whole.
#[rpc(allow_unknown_params)]
trait LenientStore {
    #[method(name = "put")]
    async fn put(&self, #[params] batch: Batch) -> RpcResult<usize>;
}

struct Shelf;

/// The entries with a key or a value, and one more for a label.
fn count(batch: &Batch) -> usize {
    let entries = batch.entries.iter();
    let filled = entries
        .filter(|e| !e.key.is_empty() || e.value.is_some())
        .count();
    filled + usize::from(batch.label.is_some())
}

impl Store for Shelf {
    async fn put(&self, batch: Batch) -> RpcResult<usize> {
        Ok(count(&batch))
    }

    async fn put_lenient(&self, batch: Batch) -> RpcResult<usize> {
        Ok(count(&batch))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
    }

    async fn echo(&self, value: Value) -> RpcResult<Value> {
        Ok(value)
    }
}

impl LenientStore for Shelf {
    async fn put(&self, batch: Batch) -> RpcResult<usize> {
        Ok(count(&batch))
    }
}

fn store() -> Router {
    Router::new(StoreService::new(Shelf))
}

fn request(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params, "id": 1}).to_string()
}

async fn put(router: &Router, method: &str, params: Value) -> Value {
    call(router, &request(method, params)).await
}

/// Asserts `reply` is `-32602` with exactly `data`.
#[track_caller]
fn assert_refused(reply: &Value, data: Value) {
    assert_eq!(code_of(reply), -32602, "{reply}");
    assert_eq!(error_of(reply)["data"], data, "{reply}");
}

#[tokio::test]
async fn an_unknown_top_level_member_is_refused() {
    let reply = put(&store(), "put", json!({"entries": [], "bogus": 1})).await;
    assert_refused(
        &reply,
        json!({"param": "batch", "path": "/bogus", "reason": "unknown field `bogus`"}),
    );
}

#[tokio::test]
async fn an_unknown_nested_member_is_refused_with_its_path() {
    let params = json!({"entries": [{"key": "a"}, {"key": "b", "colour": "red"}]});
    let reply = put(&store(), "put", params).await;
    assert_refused(
        &reply,
        json!({"param": "batch", "path": "/entries/1/colour", "reason": "unknown field `colour`"}),
    );
}

#[tokio::test]
async fn a_params_struct_with_only_its_own_fields_is_accepted() {
    let params = json!({"entries": [{"key": "a", "value": 1}, {"key": "b"}], "label": null});
    let reply = put(&store(), "put", params).await;
    assert_eq!(result_of(&reply), &json!(2));
}

#[tokio::test]
async fn a_type_error_is_still_reported_as_before() {
    let reply = put(
        &store(),
        "put",
        json!({"entries": [{"key": 7}], "bogus": 1}),
    )
    .await;
    assert_eq!(code_of(&reply), -32602);
    let data = &error_of(&reply)["data"];
    assert_eq!(data["path"], "/entries/0/key");
    assert!(
        data["reason"].as_str().unwrap().contains("invalid type"),
        "{data}"
    );
}

#[tokio::test]
async fn allow_unknown_params_on_the_method_accepts_unknown_members() {
    let params = json!({"entries": [{"key": "a", "extra": true}], "bogus": 1});
    let reply = put(&store(), "put_lenient", params).await;
    assert_eq!(result_of(&reply), &json!(1));
}

#[tokio::test]
async fn allow_unknown_params_on_the_trait_accepts_unknown_members() {
    let router = Router::new(LenientStoreService::new(Shelf));
    let params = json!({"entries": [{"key": "a", "extra": true}], "bogus": 1});
    assert_eq!(result_of(&put(&router, "put", params).await), &json!(1));
}

#[tokio::test]
async fn whole_params_of_other_types_are_unaffected() {
    let router = store();
    assert_eq!(
        result_of(&put(&router, "sum", json!([1, 2, 3])).await),
        &json!(6)
    );
    let anything = json!({"a": [1, {"b": null}], "c": "d"});
    assert_eq!(
        result_of(&put(&router, "echo", anything.clone()).await),
        &anything
    );
}
