//! `self: &Self` is the same receiver as `&self`.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Echo {
    #[method(name = "echo")]
    async fn echo(self: &Self, text: String) -> RpcResult<String>;
}

struct Server;

impl Echo for Server {
    async fn echo(&self, text: String) -> RpcResult<String> {
        Ok(text)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = EchoClient::new(InProcess::new(Router::new(Server.into_service())));
    assert_eq!(client.echo("hi".to_owned()).await.unwrap(), "hi");
}
