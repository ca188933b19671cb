// A #[method] returning a plain value: reported on the type; the impl adds no error.
use typed_rpc::rpc;

#[rpc]
pub trait Math {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> i64;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn main() {}
