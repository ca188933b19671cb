//! The router under test: two services merged, with every method shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use typed_rpc::{ErrorObject, Router, RpcResult, rpc};

/// The batch limit of [`router`]: small, so generated batches can pass it.
pub const MAX_BATCH: usize = 16;

/// Arithmetic and greetings: positional, named, optional params, app errors.
#[rpc]
pub trait Arith {
    /// `minuend - subtrahend`, wrapping.
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// The wrapping sum of the whole positional params.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// `"{greeting}, {name}!"`, `greeting` defaulting to `Hello`.
    #[method(name = "greet", param_style = "named")]
    async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String>;

    /// Always fails, with the error object it is given.
    #[method(name = "fail")]
    async fn fail(&self, code: i64, message: String) -> RpcResult<()>;

    /// Never answered.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);
}

/// The params of `tools/call`, bound whole.
#[derive(Debug, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// A second service, merged with [`Arith`] in one router.
#[rpc]
pub trait Tools {
    /// `{"name": name, "has_arguments": bool}`.
    #[method(name = "tools/call")]
    async fn call_tool(&self, #[params] call: ToolCall) -> RpcResult<Value>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;

    /// Unknown named params are ignored.
    #[method(name = "lenient", allow_unknown_params)]
    async fn lenient(&self, n: u64) -> RpcResult<u64>;

    #[notification(name = "bump")]
    async fn bump(&self, by: u64);
}

pub struct Impl;

impl Arith for Impl {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend.wrapping_sub(subtrahend))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().fold(0i64, |a, b| a.wrapping_add(*b)))
    }

    async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String> {
        Ok(greeting_text(&name, greeting.as_deref()))
    }

    async fn fail(&self, code: i64, message: String) -> RpcResult<()> {
        Err(ErrorObject::new(code, message))
    }

    async fn update(&self, _values: Vec<i64>) {}
}

impl Tools for Impl {
    async fn call_tool(&self, call: ToolCall) -> RpcResult<Value> {
        Ok(serde_json::json!({"name": call.name, "has_arguments": call.arguments.is_some()}))
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".to_owned())
    }

    async fn lenient(&self, n: u64) -> RpcResult<u64> {
        Ok(n)
    }

    async fn bump(&self, _by: u64) {}
}

pub fn greeting_text(name: &str, greeting: Option<&str>) -> String {
    format!("{}, {name}!", greeting.unwrap_or("Hello"))
}

/// The router every router check runs against.
pub fn router() -> Router {
    Router::builder()
        .service(Arith::into_service(Impl))
        .service(Tools::into_service(Impl))
        .max_batch_len(MAX_BATCH)
        .build()
        .expect("the two services share no method name")
}

/// The methods the router knows, and whether each is a notification.
pub const KNOWN: &[(&str, bool)] = &[
    ("subtract", false),
    ("sum", false),
    ("greet", false),
    ("fail", false),
    ("update", true),
    ("tools/call", false),
    ("ping", false),
    ("lenient", false),
    ("bump", true),
];
