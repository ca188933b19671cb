//! The calculator of the JSON-RPC 2.0 specification: positional args, a
//! `#[params]` argument, a tuple result and notifications.

use std::sync::atomic::{AtomicI64, Ordering};

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Calculator {
    /// Subtracts `subtrahend` from `minuend`.
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// Sums any number of values.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);
}

#[derive(Default)]
struct Calc {
    total: AtomicI64,
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
        self.total.fetch_add(values.iter().sum(), Ordering::Relaxed);
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let router = Router::new(Calc::default().into_service());
    let client = CalculatorClient::new(InProcess::new(router));
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(client.sum(vec![1, 2, 4]).await.unwrap(), 7);
    assert_eq!(client.get_data().await.unwrap(), ("hello".to_owned(), 5));
    client.update(vec![1, 2, 3]).await.unwrap();
}
