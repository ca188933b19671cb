// A namespace that makes every name start with `rpc.`: one error, on the namespace.
use typed_rpc::{RpcResult, rpc};

#[rpc(namespace = "rpc", namespace_separator = ".")]
pub trait Discovery {
    #[method(name = "discover")]
    async fn discover(&self) -> RpcResult<String>;
}

fn main() {}
