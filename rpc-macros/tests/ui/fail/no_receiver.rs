// A method without `&self`; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Clock {
    #[method(name = "now")]
    async fn now() -> RpcResult<u64>;
}

struct Server;

impl Clock for Server {
    async fn now() -> RpcResult<u64> {
        Ok(0)
    }
}

fn main() {}
