//! Every example exchange of the JSON-RPC 2.0 specification, read at run time
//! from the shared test vectors and run against the calculator router.
//!
//! Replies are compared structurally: `null` means no reply at all; a batch
//! reply is matched element by element on `id` in any order; an error's `code`
//! and `id` must match while its `message` may differ and `data` may be added.

use crate::support;
use serde::Deserialize;
use serde_json::{Value, json};

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/conformance/jsonrpc2-spec-examples.json"
);

#[derive(Deserialize)]
struct Vectors {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    request: String,
    response: Value,
}

#[tokio::test]
async fn every_specification_example_is_answered_as_the_specification_says() {
    let text = std::fs::read_to_string(VECTORS)
        .unwrap_or_else(|err| panic!("cannot read the test vectors at {VECTORS}: {err}"));
    let vectors: Vectors = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("the test vectors at {VECTORS} do not parse: {err}"));
    assert!(!vectors.cases.is_empty(), "no cases in {VECTORS}");

    let mut failures = Vec::new();
    for case in &vectors.cases {
        // A fresh router per case, so no case depends on another.
        let (router, _) = support::calculator();
        let reply = router.handle(case.request.as_bytes()).await;
        if let Err(why) = check(&case.response, reply.as_deref()) {
            failures.push(format!(
                "case {:?}: {why}\n    request:  {}\n    expected: {}\n    got:      {}",
                case.name,
                case.request,
                case.response,
                reply.as_deref().unwrap_or("(no reply)"),
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} specification cases failed:\n{}",
        failures.len(),
        vectors.cases.len(),
        failures.join("\n")
    );
}

/// Whether `reply` (the router's text, `None` for no reply) is what `expected` describes.
fn check(expected: &Value, reply: Option<&str>) -> Result<(), String> {
    let reply = match (expected, reply) {
        (Value::Null, None) => return Ok(()),
        (Value::Null, Some(_)) => return Err("expected no reply at all, got one".into()),
        (_, None) => return Err("expected a reply, got none".into()),
        (_, Some(reply)) => reply,
    };
    let actual: Value =
        serde_json::from_str(reply).map_err(|err| format!("the reply is not JSON: {err}"))?;
    match (expected, &actual) {
        (Value::Array(expected), Value::Array(actual)) => check_batch(expected, actual),
        (Value::Array(_), _) => {
            Err("expected a batch reply (an array), got a single object".into())
        }
        (_, Value::Array(_)) => Err("expected a single response object, got an array".into()),
        (expected, actual) => check_response(expected, actual),
    }
}

/// Matches each expected response to a distinct reply element, in any order.
fn check_batch(expected: &[Value], actual: &[Value]) -> Result<(), String> {
    let mut unused: Vec<&Value> = actual.iter().collect();
    let mut missing = Vec::new();
    for want in expected {
        match unused
            .iter()
            .position(|got| check_response(want, got).is_ok())
        {
            Some(index) => {
                unused.remove(index);
            }
            None => missing.push(want.to_string()),
        }
    }
    if missing.is_empty() && unused.is_empty() {
        return Ok(());
    }
    let unexpected: Vec<String> = unused.iter().map(|v| v.to_string()).collect();
    Err(format!(
        "batch reply differs: no reply matches [{}]; unexpected replies [{}]",
        missing.join(", "),
        unexpected.join(", ")
    ))
}

/// Compares one response: `jsonrpc`, `id`, and either the same `result` or an
/// error with the same `code` (any `message`, optional `data`).
fn check_response(expected: &Value, actual: &Value) -> Result<(), String> {
    let object = actual
        .as_object()
        .ok_or_else(|| format!("a response must be an object: {actual}"))?;
    if let Some(extra) = object
        .keys()
        .find(|k| !matches!(k.as_str(), "jsonrpc" | "result" | "error" | "id"))
    {
        return Err(format!("unexpected member `{extra}` in {actual}"));
    }
    if actual.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(format!("`jsonrpc` is not \"2.0\" in {actual}"));
    }
    match actual.get("id") {
        Some(id) if Some(id) == expected.get("id") => {}
        _ => return Err(format!("id differs: want {}", expected["id"])),
    }
    match (expected.get("result"), expected.get("error")) {
        (Some(result), None) => {
            if actual.get("error").is_some() {
                return Err(format!("expected result {result}, got an error"));
            }
            if actual.get("result") != Some(result) {
                return Err(format!("expected result {result}"));
            }
        }
        (None, Some(error)) => {
            if actual.get("result").is_some() {
                return Err("expected an error, got a result".into());
            }
            let got = actual
                .get("error")
                .and_then(Value::as_object)
                .ok_or("expected an error object")?;
            if got.get("code") != error.get("code") {
                return Err(format!("expected error code {}", error["code"]));
            }
            if !got.get("message").is_some_and(Value::is_string) {
                return Err("the error has no string `message`".into());
            }
            if let Some(extra) = got
                .keys()
                .find(|k| !matches!(k.as_str(), "code" | "message" | "data"))
            {
                return Err(format!("unexpected member `{extra}` in the error object"));
            }
        }
        _ => return Err(format!("bad test vector: {expected}")),
    }
    Ok(())
}

/// The comparison above is what makes the conformance test mean anything, so
/// it must itself reject wrong replies and accept the allowed differences.
#[test]
fn the_comparison_rejects_wrong_replies_and_allows_what_the_spec_allows() {
    let success = json!({"jsonrpc": "2.0", "result": 19, "id": 1});
    let error = json!({"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"});

    assert_eq!(
        check(&success, Some(r#"{"jsonrpc":"2.0","result":19,"id":1}"#)),
        Ok(())
    );
    assert_eq!(check(&Value::Null, None), Ok(()));
    // Another message and added data are allowed.
    assert_eq!(
        check(
            &error,
            Some(
                r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"no such method","data":{"method":"foobar"}},"id":"1"}"#
            )
        ),
        Ok(())
    );

    for wrong in [
        r#"{"jsonrpc":"2.0","result":19,"id":2}"#,
        r#"{"jsonrpc":"2.0","result":"19","id":1}"#,
        r#"{"jsonrpc":"2.0","result":19,"id":"1"}"#,
        r#"{"jsonrpc":"1.0","result":19,"id":1}"#,
        r#"{"jsonrpc":"2.0","result":19,"error":{"code":1,"message":"x"},"id":1}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"x"},"id":1}"#,
        r#"[{"jsonrpc":"2.0","result":19,"id":1}]"#,
        "not json",
    ] {
        assert!(check(&success, Some(wrong)).is_err(), "accepted {wrong}");
    }
    assert!(check(&success, None).is_err());
    assert!(
        check(
            &Value::Null,
            Some(r#"{"jsonrpc":"2.0","result":19,"id":1}"#)
        )
        .is_err()
    );
    assert!(
        check(
            &error,
            Some(
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method not found"},"id":"1"}"#
            )
        )
        .is_err()
    );

    // Batches: any order, but every element exactly once.
    let batch = json!([
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
    ]);
    let invalid =
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;
    let seven = r#"{"jsonrpc":"2.0","result":7,"id":"1"}"#;
    assert_eq!(
        check(&batch, Some(&format!("[{invalid},{seven},{invalid}]"))),
        Ok(())
    );
    assert!(check(&batch, Some(&format!("[{invalid},{seven}]"))).is_err());
    assert!(check(&batch, Some(&format!("[{seven},{seven},{invalid}]"))).is_err());
    assert!(
        check(
            &batch,
            Some(&format!("[{invalid},{seven},{invalid},{invalid}]"))
        )
        .is_err()
    );
    assert!(check(&batch, Some(invalid)).is_err());
}
