//! The calculator of the JSON-RPC 2.0 specification's examples, served and
//! called through the typed client.

use std::sync::atomic::{AtomicI64, Ordering};

use typed_rpc::client::InProcess;
use typed_rpc::{ErrorObject, Router, RpcResult, rpc};

/// The calculator API of the JSON-RPC 2.0 specification's examples.
#[rpc]
pub trait Calculator {
    /// Subtracts `subtrahend` from `minuend`.
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// Adds `a` and `b`; fails on overflow.
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// Sums any number of values, given as the whole positional params.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// Returns `["hello", 5]`.
    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    /// Records the values; never answered.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);

    /// Says hello to `value`; never answered.
    #[notification(name = "notify_hello")]
    async fn notify_hello(&self, value: i64);

    /// Sums the values into the running total; never answered.
    #[notification(name = "notify_sum")]
    async fn notify_sum(&self, #[params] values: Vec<i64>);
}

/// A calculator that keeps a running total of what it is notified about.
#[derive(Default)]
struct Calc {
    total: AtomicI64,
}

impl Calculator for Calc {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        a.checked_add(b)
            .ok_or_else(|| ErrorObject::new(-32000, "Overflow").with_data(&[a, b]))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
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
}

#[tokio::main]
async fn main() {
    let router = Router::new(Calc::default().into_service());
    let client = CalculatorClient::new(InProcess::new(router));

    println!("subtract(42, 23) = {:?}", client.subtract(42, 23).await);
    println!("add(2, 3) = {:?}", client.add(2, 3).await);
    println!("add(i64::MAX, 1) = {:?}", client.add(i64::MAX, 1).await);
    println!("sum([1, 2, 4]) = {:?}", client.sum(vec![1, 2, 4]).await);
    println!("get_data() = {:?}", client.get_data().await);
    println!(
        "update([1, 2, 3]) = {:?}",
        client.update(vec![1, 2, 3]).await
    );
    println!("notify_hello(7) = {:?}", client.notify_hello(7).await);
    println!(
        "notify_sum([1, 2, 4]) = {:?}",
        client.notify_sum(vec![1, 2, 4]).await
    );
}
