// #[params] beside other arguments; the impl adds no error.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Math {
    #[method(name = "scale")]
    async fn scale(&self, factor: i64, #[params] values: Vec<i64>) -> RpcResult<Vec<i64>>;
}

struct Server;

impl Math for Server {
    async fn scale(&self, factor: i64, values: Vec<i64>) -> RpcResult<Vec<i64>> {
        Ok(values.into_iter().map(|v| v * factor).collect())
    }
}

fn main() {}
