// An unknown key in #[rpc(...)]: the message lists the known keys; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc(namespace = "math", separator = ".")]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }
}

fn main() {}
