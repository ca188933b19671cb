// A result type that is neither `Serialize` nor `Deserialize`: one error, on the
// return type, which says what to derive.
use typed_rpc::{RpcResult, rpc};

/// Neither `Serialize` nor `Deserialize`.
pub struct Point {
    pub x: i64,
    pub y: i64,
}

#[rpc]
pub trait Geometry {
    #[method(name = "origin")]
    async fn origin(&self) -> RpcResult<Point>;
}

struct Server;

impl Geometry for Server {
    async fn origin(&self) -> RpcResult<Point> {
        Ok(Point { x: 0, y: 0 })
    }
}

fn main() {}
