//! `param_style = "named"` on the trait, overridden per method, and
//! `allow_unknown_params` on the trait and on one method.

use typed_rpc::client::InProcess;
use typed_rpc::{ParamStyle, Router, RpcResult, rpc};

#[rpc(param_style = "named")]
pub trait Named {
    #[method(name = "divide")]
    async fn divide(&self, dividend: i64, divisor: i64) -> RpcResult<i64>;

    #[method(name = "power", param_style = "positional", allow_unknown_params)]
    async fn power(&self, base: i64, exponent: u32) -> RpcResult<i64>;
}

#[rpc(allow_unknown_params)]
pub trait Lenient {
    #[method(name = "echo", param_style = "named")]
    async fn echo(&self, text: String) -> RpcResult<String>;
}

struct Server;

impl Named for Server {
    async fn divide(&self, dividend: i64, divisor: i64) -> RpcResult<i64> {
        Ok(dividend / divisor)
    }

    async fn power(&self, base: i64, exponent: u32) -> RpcResult<i64> {
        Ok(base.pow(exponent))
    }
}

impl Lenient for Server {
    async fn echo(&self, text: String) -> RpcResult<String> {
        Ok(text)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let [divide, power] = NamedService::INFO.methods() else {
        panic!("two methods")
    };
    assert_eq!(divide.client_param_style(), ParamStyle::Named);
    assert_eq!(power.client_param_style(), ParamStyle::Positional);

    let router = Router::new(Named::into_service(Server));
    let reply = router
        .handle(br#"{"jsonrpc":"2.0","method":"power","params":{"base":2,"exponent":3,"extra":0},"id":1}"#)
        .await
        .unwrap();
    assert_eq!(reply, r#"{"jsonrpc":"2.0","result":8,"id":1}"#);
    let client = NamedClient::new(InProcess::new(router));
    assert_eq!(client.divide(7, 2).await.unwrap(), 3);
    assert_eq!(client.power(2, 10).await.unwrap(), 1024);

    let router = Router::new(Lenient::into_service(Server));
    let reply = router
        .handle(br#"{"jsonrpc":"2.0","method":"echo","params":{"text":"hi","extra":0},"id":1}"#)
        .await
        .unwrap();
    assert_eq!(reply, r#"{"jsonrpc":"2.0","result":"hi","id":1}"#);
    let client = LenientClient::new(InProcess::new(router));
    assert_eq!(client.echo("hi".to_owned()).await.unwrap(), "hi");
}
