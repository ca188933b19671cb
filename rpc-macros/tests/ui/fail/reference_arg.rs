// A borrowed argument type (`&str`); the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Greeter {
    #[method(name = "greet")]
    async fn greet(&self, name: &str) -> RpcResult<String>;
}

struct Server;

impl Greeter for Server {
    async fn greet(&self, name: &str) -> RpcResult<String> {
        Ok(format!("hello, {name}"))
    }
}

fn main() {}
