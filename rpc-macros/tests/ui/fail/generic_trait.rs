// Generic traits are rejected, on their generics; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Store<T> {
    #[method(name = "get")]
    async fn get(&self, key: String) -> RpcResult<T>;
}

struct Server;

impl Store<String> for Server {
    async fn get(&self, key: String) -> RpcResult<String> {
        Ok(key)
    }
}

fn main() {}
