// An unknown `param_style` value, on the trait and on a method: both reported.
use typed_rpc::{RpcResult, rpc};

#[rpc(param_style = "by-name")]
pub trait Math {
    #[method(name = "add", param_style = "array")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

fn main() {}
