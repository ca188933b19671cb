// A trait item that is not a method; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    const ZERO: i64;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    const ZERO: i64 = 0;

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }
}

fn main() {}
