// A method with neither #[method] nor #[notification]; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    async fn subtract(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn subtract(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a - b)
    }
}

fn main() {}
