//! What the integration test crates share, written once: helpers to send
//! request text to a router and read the reply, the calculator API of the
//! JSON-RPC 2.0 specification's examples, raw peers that speak each wire by
//! hand, and the hostile-input harness. What a test provisions from the
//! machine (packages, example binaries, child processes) is
//! `typed-rpc-test-support`'s.
//!
//! Each crate mounts this folder with
//! `#[path = "../support/mod.rs"] mod support;`.

// Each test crate uses its own part of this module.
#![allow(dead_code)]

pub mod calculator;
pub mod deep;
pub mod faults;
pub mod harness;
pub mod raw;
pub mod rss;

/// The calculator example's API, for the tests that talk to the example.
#[path = "../../examples/common/calculator_api.rs"]
pub mod calculator_api;
/// The language server example's API.
#[path = "../../examples/common/lsp_api.rs"]
pub mod lsp_api;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use serde_json::Value;
use typed_rpc::client::{ClientExt, Params, Transport};
use typed_rpc::{Router, RpcResult, rpc};

/// The API the specification's examples call.
#[rpc]
pub trait Calculator {
    /// `minuend - subtrahend`.
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// The sum of any number of values: the whole positional params.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// `["hello", 5]`.
    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    /// Adds the values to the running total.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);

    /// Counts a hello.
    #[notification(name = "notify_hello")]
    async fn notify_hello(&self, value: i64);

    /// Adds the values to the running total.
    #[notification(name = "notify_sum")]
    async fn notify_sum(&self, #[params] values: Vec<i64>);
}

/// A calculator whose notifications leave traces a test can read after the
/// router has taken the service: clones share the counters.
#[derive(Clone, Default)]
pub struct Calc {
    /// The sum of every value `update` and `notify_sum` received.
    pub total: Arc<AtomicI64>,
    /// How many times `notify_hello` ran.
    pub hellos: Arc<AtomicUsize>,
}

impl Calc {
    pub fn total(&self) -> i64 {
        self.total.load(Ordering::SeqCst)
    }

    pub fn hellos(&self) -> usize {
        self.hellos.load(Ordering::SeqCst)
    }
}

impl Calculator for Calc {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
    }

    async fn get_data(&self) -> RpcResult<(String, i64)> {
        Ok(("hello".to_owned(), 5))
    }

    async fn update(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::SeqCst);
    }

    async fn notify_hello(&self, _value: i64) {
        self.hellos.fetch_add(1, Ordering::SeqCst);
    }

    async fn notify_sum(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::SeqCst);
    }
}

/// A router serving a fresh calculator, and a handle on that calculator's counters.
pub fn calculator() -> (Router, Calc) {
    let calc = Calc::default();
    (Router::new(calc.clone().into_service()), calc)
}

/// Two mistakes a caller makes, through `transport` to a calculator: an
/// unknown method is `-32601`, and `subtract` with one operand is `-32602`
/// naming the missing `subtrahend`.
pub async fn check_caller_mistakes<T: Transport>(transport: &T) {
    let err = transport.call::<i64>("multiply", None).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32601);
    let err = transport
        .call::<i64>("subtract", Some(Params::from_value(&[1]).unwrap()))
        .await
        .unwrap_err();
    let rpc = err.rpc_error().unwrap();
    assert_eq!(rpc.code(), -32602);
    assert_eq!(
        rpc.data_as::<Value>().unwrap().unwrap()["param"],
        "subtrahend"
    );
}

/// Sends `request` and parses the reply; `None` when the router sends nothing.
pub async fn send(router: &Router, request: &str) -> Option<Value> {
    let reply = router.handle(request.as_bytes()).await?;
    Some(
        serde_json::from_str(&reply)
            .unwrap_or_else(|err| panic!("the reply to {request} is not JSON ({err}): {reply}")),
    )
}

/// Sends `request`, which must be answered, and parses the reply.
pub async fn call(router: &Router, request: &str) -> Value {
    send(router, request)
        .await
        .unwrap_or_else(|| panic!("no reply to {request}"))
}

/// The `error` member of a single reply, after checking the reply has no `result`.
pub fn error_of(reply: &Value) -> &Value {
    assert!(
        reply.get("result").is_none(),
        "expected an error, got a result: {reply}"
    );
    reply
        .get("error")
        .unwrap_or_else(|| panic!("expected an error member: {reply}"))
}

/// The `result` member of a single reply, after checking the reply has no `error`.
pub fn result_of(reply: &Value) -> &Value {
    assert!(
        reply.get("error").is_none(),
        "expected a result, got an error: {reply}"
    );
    reply
        .get("result")
        .unwrap_or_else(|| panic!("expected a result member: {reply}"))
}

/// The error code of a single reply.
pub fn code_of(reply: &Value) -> i64 {
    let error = error_of(reply);
    error["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("error code is not an integer: {reply}"))
}

/// Whether `actual` is the reply `expected` describes (as the conformance
/// vectors do): same ids, results and error codes (messages may differ,
/// `data` may be added), batch entries in any order.
pub fn same_reply(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Array(expected), Value::Array(actual)) => {
            let mut unmatched: Vec<&Value> = actual.iter().collect();
            expected.len() == actual.len()
                && expected.iter().all(|e| {
                    match unmatched.iter().position(|a| same_response(e, a)) {
                        Some(at) => {
                            unmatched.remove(at);
                            true
                        }
                        None => false,
                    }
                })
        }
        _ => same_response(expected, actual),
    }
}

fn same_response(expected: &Value, actual: &Value) -> bool {
    actual["jsonrpc"] == "2.0"
        && actual.get("id") == expected.get("id")
        && match expected.get("error") {
            Some(error) => {
                actual.get("result").is_none() && actual["error"]["code"] == error["code"]
            }
            None => actual.get("error").is_none() && actual.get("result") == expected.get("result"),
        }
}
