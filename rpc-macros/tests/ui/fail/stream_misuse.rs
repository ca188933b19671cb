// Streaming mistakes: a notification cannot stream, a streaming method must
// name its item type, `stream(...)` knows three keys and two fallbacks.
// Each is reported on its own method; the valid methods are still generated.
use futures_util::stream::Stream;
use typed_rpc::{RpcResult, rpc};

#[rpc]
pub trait Feed {
    #[notification(name = "tick", stream)]
    async fn tick(&self);

    #[method(name = "items", stream)]
    async fn items(&self) -> RpcResult<Vec<u64>>;

    #[method(name = "watch", stream(notice = "watch_item"))]
    async fn watch(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    #[method(name = "follow", stream(fallback = "first_item"))]
    async fn follow(&self) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;
}

fn main() {}
