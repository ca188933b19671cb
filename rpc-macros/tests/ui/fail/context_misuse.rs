// `#[context]` misuse: by value, twice, and together with `#[params]`; one error each.
use typed_rpc::{Context, RpcResult, rpc};

#[rpc]
pub trait Whoami {
    #[method(name = "owned")]
    async fn owned(&self, #[context] cx: Context) -> RpcResult<String>;

    #[method(name = "twice")]
    async fn twice(&self, #[context] a: &Context, #[context] b: &Context) -> RpcResult<String>;

    #[method(name = "both")]
    async fn both(&self, #[params] #[context] cx: &Context) -> RpcResult<String>;
}

fn main() {}
