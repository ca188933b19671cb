// A misspelt key in each of our attributes: the message suggests the key
// meant, then lists the known ones.
use typed_rpc::{RpcResult, rpc};

#[rpc(namspace = "math")]
pub trait Math {
    #[method(nmae = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[notification(idempotant)]
    async fn reset(&self);
}

fn main() {}
