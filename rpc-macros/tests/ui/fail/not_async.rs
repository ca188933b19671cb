// A method that is not `async fn`: reported on `fn`; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add")]
    fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }
}

fn main() {}
