//! The calculator API of the JSON-RPC 2.0 specification's examples, shared
//! by the server and client examples.

use std::sync::atomic::{AtomicI64, Ordering};

use typed_rpc::{ErrorObject, RpcResult, rpc};

/// The calculator of the JSON-RPC 2.0 specification's examples, plus `add`.
#[rpc]
pub trait Calculator {
    /// Subtracts `subtrahend` from `minuend`.
    #[method(name = "subtract", example(params = "[42, 23]", result = "19"))]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// Adds `a` and `b`; fails with `-32000` on overflow.
    #[method(
        name = "add",
        error(code = -32000, message = "Overflow"),
        example(params = "[1, 2]", result = "3")
    )]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// Sums any number of values, given as the whole positional params.
    #[method(
        name = "sum",
        error(code = -32000, message = "Overflow"),
        example(params = "[1, 2, 4]", result = "7")
    )]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// Returns `["hello", 5]`.
    #[method(name = "get_data", example(params = "[]", result = r#"["hello", 5]"#))]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    /// Adds the values to the running total; never answered.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);

    /// Says hello on stderr; never answered.
    #[notification(name = "notify_hello")]
    async fn notify_hello(&self, value: i64);

    /// Adds the values to the running total; never answered.
    #[notification(name = "notify_sum")]
    async fn notify_sum(&self, #[params] values: Vec<i64>);

    /// The running total of what `update` and `notify_sum` received.
    #[method(
        name = "total",
        example(name = "nothing yet", params = "[]", result = "0")
    )]
    async fn total(&self) -> RpcResult<i64>;
}

/// A calculator that keeps a running total of what it is notified about.
#[derive(Default)]
pub struct Calc {
    total: AtomicI64,
}

impl Calculator for Calc {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        minuend
            .checked_sub(subtrahend)
            .ok_or_else(|| overflow(minuend, subtrahend))
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        a.checked_add(b).ok_or_else(|| overflow(a, b))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        values
            .iter()
            .try_fold(0i64, |sum, v| sum.checked_add(*v))
            .ok_or_else(|| ErrorObject::new(-32000, "Overflow").with_data(&values))
    }

    async fn get_data(&self) -> RpcResult<(String, i64)> {
        Ok(("hello".to_owned(), 5))
    }

    async fn update(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::Relaxed);
    }

    async fn notify_hello(&self, value: i64) {
        eprintln!("hello, {value}");
    }

    async fn notify_sum(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::Relaxed);
    }

    async fn total(&self) -> RpcResult<i64> {
        Ok(self.total.load(Ordering::Relaxed))
    }
}

fn overflow(a: i64, b: i64) -> ErrorObject {
    ErrorObject::new(-32000, "Overflow").with_data(&[a, b])
}
