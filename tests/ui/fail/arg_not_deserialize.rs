// Arguments that are not `Serialize`/`Deserialize` are reported on the argument's
// type (client) and on the parameter list (server), never on `#[rpc]`.
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
