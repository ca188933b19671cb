// `allow_unknown_params` is a flag; a value given to it is reported.
use typed_rpc::{RpcResult, rpc};

#[rpc(allow_unknown_params = true)]
pub trait Math {
    #[method(name = "add", allow_unknown_params = false)]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;
}

fn main() {}
