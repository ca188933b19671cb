// An unknown key in #[method(...)]: the message lists the known keys.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add", alias = "plus")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

fn main() {}
