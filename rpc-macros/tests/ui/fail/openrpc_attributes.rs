use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Misused {
    #[method(
        error(code = -32601, message = "Not here"),
        error(code = "404", message = "Missing"),
        error(code = 1),
        error(code = 2, message = "Bad", data = "x")
    )]
    async fn errors(&self) -> RpcResult<()>;

    #[method(
        example(result = "1"),
        example(params = "[1,", result = "1"),
        example(params = "1", result = "1"),
        example(params = "[1]"),
        example(params = "[1]", result = "nope")
    )]
    async fn examples(&self, a: i64) -> RpcResult<i64>;

    #[notification(example(params = "[1]", result = "1"))]
    async fn told(&self, a: i64);
}

fn main() {}
