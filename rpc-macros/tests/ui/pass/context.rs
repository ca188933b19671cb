//! `#[context]` arguments: beside params, beside `#[params]`, first or last;
//! never part of the params or the client's signature.

use serde::Deserialize;
use typed_rpc::client::InProcess;
use typed_rpc::{Context, Router, RpcResult, TransportKind, rpc};

#[derive(Deserialize, serde::Serialize)]
pub struct Greeting {
    pub name: String,
}

#[rpc]
pub trait Contextual {
    #[method(name = "first")]
    async fn first(&self, #[context] cx: &Context, a: i64) -> RpcResult<String>;

    #[method(name = "last")]
    async fn last(&self, a: i64, #[context] cx: &Context) -> RpcResult<String>;

    #[method(name = "whole")]
    async fn whole(&self, #[params] greeting: Greeting, #[context] cx: &Context) -> RpcResult<String>;

    #[notification(name = "ping")]
    async fn ping(&self, #[context] cx: &Context);
}

struct Server;

impl Contextual for Server {
    async fn first(&self, cx: &Context, a: i64) -> RpcResult<String> {
        Ok(format!("{a} over {:?}", cx.transport()))
    }

    async fn last(&self, a: i64, cx: &Context) -> RpcResult<String> {
        Ok(format!("{a} over {:?}", cx.transport()))
    }

    async fn whole(&self, greeting: Greeting, cx: &Context) -> RpcResult<String> {
        assert_eq!(cx.transport(), TransportKind::InProcess);
        Ok(format!("hello {}", greeting.name))
    }

    async fn ping(&self, cx: &Context) {
        assert_eq!(cx.transport(), TransportKind::InProcess);
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let info = ContextualService::INFO;
    assert_eq!(info.methods()[0].param_list().len(), 1, "the context is not a param");
    let client = ContextualClient::new(InProcess::new(Router::new(Server.into_service())));
    assert_eq!(client.first(1).await.unwrap(), "1 over InProcess");
    assert_eq!(client.last(2).await.unwrap(), "2 over InProcess");
    let greeting = Greeting { name: "Ada".to_owned() };
    assert_eq!(client.whole(greeting).await.unwrap(), "hello Ada");
    client.ping().await.unwrap();
}
