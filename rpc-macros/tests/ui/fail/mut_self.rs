// `&mut self` is rejected on the receiver; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Counter {
    #[method(name = "increment")]
    async fn increment(&mut self) -> RpcResult<u64>;
}

struct Server(u64);

impl Counter for Server {
    async fn increment(&mut self) -> RpcResult<u64> {
        self.0 += 1;
        Ok(self.0)
    }
}

fn main() {}
