//! User names that the generated code also uses for its own locals and
//! generics: `server`, `call`, `method`, `methods`, `params`, `info` as
//! argument names, and types named `S` and `T`.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
pub struct S(pub u8);

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
pub struct T(pub u8);

#[rpc]
pub trait Names {
    #[method(name = "locals")]
    async fn locals(
        &self,
        server: u8,
        call: u8,
        method: u8,
        methods: u8,
        params: u8,
        info: u8,
        transport: u8,
    ) -> RpcResult<u8>;

    #[method(name = "whole")]
    async fn whole(&self, #[params] params: Vec<u8>) -> RpcResult<u8>;

    #[method(name = "generics")]
    async fn generics(&self, s: S, t: T) -> RpcResult<(T, S)>;

    #[notification(name = "notify")]
    async fn notify(&self, method: String, params: Vec<u8>);
}

struct Server;

impl Names for Server {
    async fn locals(
        &self,
        server: u8,
        call: u8,
        method: u8,
        methods: u8,
        params: u8,
        info: u8,
        transport: u8,
    ) -> RpcResult<u8> {
        Ok(server + call + method + methods + params + info + transport)
    }

    async fn whole(&self, params: Vec<u8>) -> RpcResult<u8> {
        Ok(params.iter().sum())
    }

    async fn generics(&self, s: S, t: T) -> RpcResult<(T, S)> {
        Ok((t, s))
    }

    async fn notify(&self, _method: String, _params: Vec<u8>) {}
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = NamesClient::new(InProcess::new(Router::new(Server.into_service())));
    assert_eq!(client.locals(1, 2, 3, 4, 5, 6, 7).await.unwrap(), 28);
    assert_eq!(client.whole(vec![1, 2]).await.unwrap(), 3);
    assert_eq!(client.generics(S(1), T(2)).await.unwrap(), (T(2), S(1)));
    client.notify("m".to_owned(), vec![1]).await.unwrap();
}
