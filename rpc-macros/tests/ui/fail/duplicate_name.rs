// Two methods with the same wire name: reported on the second one; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "add")]
    async fn add_floats(&self, a: f64, b: f64) -> RpcResult<f64>;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn add_floats(&self, a: f64, b: f64) -> RpcResult<f64> {
        Ok(a + b)
    }
}

fn main() {}
