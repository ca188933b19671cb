// A param type that is neither `Serialize` nor `Deserialize`: one error on each
// such type in the trait, which says what to derive, and nothing from the
// service or the client that use it.
use typed_rpc::{RpcResult, rpc};

/// Neither `Serialize` nor `Deserialize`.
pub struct Point {
    pub x: i64,
    pub y: i64,
}

#[rpc]
pub trait Geometry {
    #[method(name = "norm")]
    async fn norm(&self, scale: i64, point: Point) -> RpcResult<i64>;

    #[notification(name = "draw")]
    async fn draw(&self, #[params] points: Vec<Point>);
}

struct Server;

impl Geometry for Server {
    async fn norm(&self, scale: i64, point: Point) -> RpcResult<i64> {
        Ok(scale * (point.x.abs() + point.y.abs()))
    }

    async fn draw(&self, _points: Vec<Point>) {}
}

fn main() {}
