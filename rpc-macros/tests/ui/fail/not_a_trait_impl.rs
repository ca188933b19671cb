// #[rpc] on an impl instead of on the trait.
use typed_rpc::{RpcResult, rpc};

pub trait Math {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Server;

#[rpc]
impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }
}

fn main() {}
