// Three different mistakes in one trait: three errors, in one compilation.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Store {
    #[method(name = "rpc.get")]
    async fn get(&self, key: String) -> RpcResult<String>;

    #[method(name = "set")]
    async fn set(&mut self, key: String, value: String) -> RpcResult<()>;

    #[notification(name = "evict")]
    async fn evict(&self, key: String) -> RpcResult<bool>;
}

struct Server;

impl Store for Server {
    async fn get(&self, key: String) -> RpcResult<String> {
        Ok(key)
    }

    async fn set(&mut self, _key: String, _value: String) -> RpcResult<()> {
        Ok(())
    }

    async fn evict(&self, _key: String) -> RpcResult<bool> {
        Ok(true)
    }
}

fn main() {}
