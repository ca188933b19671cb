// A Rust method named `new` would clash with the generated client's constructor.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Tasks {
    #[method]
    async fn new(&self, title: String) -> RpcResult<u64>;
}

fn main() {}
