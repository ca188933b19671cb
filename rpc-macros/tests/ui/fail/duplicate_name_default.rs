// A wire name taken from the Rust name clashes with an explicit name.
use typed_rpc::{RpcResult, rpc};

// Without `name = ...` the wire name is the Rust name, which can clash with
// another method's explicit name.
#[rpc]
pub trait Math {
    #[method(name = "sum")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;
}

fn main() {}
