// An alias equal to the method's own name is a duplicate.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add", aliases = ["add"])]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

fn main() {}
