// An alias that starts with `rpc.` is reserved.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Discovery {
    #[method(name = "discover", aliases = ["describe", "rpc.describe"])]
    async fn discover(&self) -> RpcResult<String>;
}

fn main() {}
