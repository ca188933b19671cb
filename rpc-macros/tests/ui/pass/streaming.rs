// A streaming method beside a plain one: the service serves both and the
// client returns a `Subscription` of the item type.
use futures_util::stream::{self, Stream, StreamExt};
use typed_rpc::client::{InProcess, Subscription};
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Feed {
    #[method(name = "numbers", stream(notification = "numbers_item", unsubscribe = "numbers_stop"))]
    async fn numbers(&self, up_to: u64)
    -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;
}

struct Server;

impl Feed for Server {
    async fn numbers(&self, up_to: u64)
    -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter(0..up_to).map(Ok))
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".into())
    }
}

async fn open(client: &FeedClient<InProcess>) -> Result<Subscription<u64>, typed_rpc::ClientError> {
    client.numbers(3).await
}

fn main() {
    let _client = FeedClient::new(InProcess::new(Router::new(Server.into_service())));
    let _ = open;
    let names: Vec<_> = FeedService::<()>::INFO.methods().iter().map(|m| m.name()).collect();
    assert_eq!(names, ["numbers", "ping", "numbers_stop"]);
}
