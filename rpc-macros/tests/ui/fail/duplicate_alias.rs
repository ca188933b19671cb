// An alias used twice: reported on the second one; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add", aliases = ["plus"])]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "subtract", aliases = ["minus", "plus"])]
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
