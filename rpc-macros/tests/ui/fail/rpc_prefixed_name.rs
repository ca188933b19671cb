// A method name that starts with `rpc.` is reserved; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Discovery {
    #[method(name = "rpc.discover")]
    async fn discover(&self) -> RpcResult<String>;
}

struct Server;

impl Discovery for Server {
    async fn discover(&self) -> RpcResult<String> {
        Ok(String::new())
    }
}

fn main() {}
