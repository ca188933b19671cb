// A #[notification] with a return type; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Events {
    #[notification(name = "update")]
    async fn update(&self, value: i64) -> RpcResult<()>;
}

struct Server;

impl Events for Server {
    async fn update(&self, _value: i64) -> RpcResult<()> {
        Ok(())
    }
}

fn main() {}
