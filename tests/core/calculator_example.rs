//! The calculator example's API, served in process: its numbers keep
//! integers exact and take fractions too.

use crate::support::calculator_api::{Calc, Calculator};
use serde_json::{Value, json};
use typed_rpc::Router;

/// The reply text to `method(params)`, as the server wrote it.
async fn reply(method: &str, params: Value) -> String {
    let router = Router::new(Calc::default().into_service());
    let request = json!({"jsonrpc": "2.0", "method": method, "params": params, "id": 1});
    router
        .handle(request.to_string().as_bytes())
        .await
        .expect("a call is answered")
}

fn result(value: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","result":{value},"id":1}}"#)
}

#[tokio::test]
async fn fractional_operands_are_added_and_subtracted() {
    assert_eq!(reply("add", json!([0.25, 0.5])).await, result("0.75"));
    assert_eq!(reply("subtract", json!([1.5, 0.25])).await, result("1.25"));
    assert_eq!(reply("add", json!([2, 0.5])).await, result("2.5"));
    assert_eq!(
        reply("add", json!({"a": 0.25, "b": 0.5})).await,
        result("0.75")
    );
}

#[tokio::test]
async fn integers_give_an_integer_on_the_wire() {
    assert_eq!(reply("add", json!([2, 3])).await, result("5"));
    assert_eq!(reply("subtract", json!([42, 23])).await, result("19"));
    assert_eq!(reply("subtract", json!([23, 42])).await, result("-19"));
}

#[tokio::test]
async fn big_integers_stay_exact() {
    // 2^53 + 1 is the first integer an f64 cannot hold.
    let big = (1i64 << 53) + 1;
    assert_eq!(
        reply("add", json!([big, 1])).await,
        result("9007199254740994")
    );
    assert_eq!(
        reply("subtract", json!([i64::MAX, 1])).await,
        result("9223372036854775806")
    );
    assert_eq!(
        reply("add", json!([i64::MIN, i64::MAX])).await,
        result("-1")
    );
}

#[tokio::test]
async fn integer_overflow_is_the_overflow_error_with_the_operands() {
    let overflow = |a: Value, b: Value| json!({"jsonrpc": "2.0", "error": {"code": -32000, "message": "Overflow", "data": [a, b]}, "id": 1});
    let parsed = |text: String| serde_json::from_str::<Value>(&text).unwrap();
    assert_eq!(
        parsed(reply("add", json!([i64::MAX, 1])).await),
        overflow(json!(i64::MAX), json!(1))
    );
    assert_eq!(
        parsed(reply("subtract", json!([i64::MIN, 1])).await),
        overflow(json!(i64::MIN), json!(1))
    );
    // A float result past f64's range has no JSON form: the same error.
    assert_eq!(
        parsed(reply("add", json!([1e308, 1e308])).await),
        overflow(json!(1e308), json!(1e308))
    );
}

#[tokio::test]
async fn integers_past_i64_and_non_numbers_are_invalid_params() {
    for params in [json!([u64::MAX, 1]), json!(["2", 3]), json!([null, 3])] {
        let reply: Value = serde_json::from_str(&reply("add", params.clone()).await).unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
    }
}
