// Generic methods are rejected, on their generics.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Echo {
    #[method(name = "echo")]
    async fn echo<T: serde::Serialize + Send>(&self, value: T) -> RpcResult<T>;
}

fn main() {}
