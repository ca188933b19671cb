// Turn mistakes: one access at most, a key is a JSON Pointer, and only an
// exclusive method with a key supersedes. Each is reported where it is
// written; the valid methods are still generated.
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Editor {
    #[notification(name = "both", exclusive, shared)]
    async fn both(&self);

    #[method(name = "read", shared, key = "textDocument/uri")]
    async fn read(&self) -> RpcResult<String>;

    #[notification(name = "shared_supersede", shared, key = "/uri", supersede)]
    async fn shared_supersede(&self);

    #[notification(name = "no_key", exclusive, supersede)]
    async fn no_key(&self);

    #[notification(name = "change", exclusive, key = "/uri", supersede)]
    async fn change(&self);
}

fn main() {}
