// A pattern argument: one error from the macro, none from rustc (E0642); the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, (a, b): (i64, i64)) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    async fn add(&self, (a, b): (i64, i64)) -> RpcResult<i64> {
        Ok(a + b)
    }
}

fn main() {}
