// `self` by value, `mut self` and `self: Box<Self>` are rejected on the receiver.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Shutdown {
    #[method(name = "shutdown")]
    async fn shutdown(self) -> RpcResult<()>;

    #[method(name = "restart")]
    async fn restart(mut self) -> RpcResult<()>;

    #[method(name = "reload")]
    async fn reload(self: Box<Self>) -> RpcResult<()>;
}

fn main() {}
