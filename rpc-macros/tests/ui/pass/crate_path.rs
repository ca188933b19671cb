//! `#[rpc(crate = "...")]` points the generated code at the runtime through
//! another path: an absolute one, or a renamed import.

use typed_rpc as renamed;
use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult};

#[typed_rpc::rpc(crate = "::typed_rpc")]
pub trait Absolute {
    #[method(name = "one")]
    async fn one(&self) -> RpcResult<u8>;
}

#[renamed::rpc(crate = "renamed")]
pub trait Renamed {
    #[method(name = "two")]
    async fn two(&self) -> renamed::RpcResult<u8>;
}

mod nested {
    use typed_rpc::RpcResult;

    #[typed_rpc::rpc(crate = "crate::renamed")]
    pub trait Nested {
        #[method(name = "three")]
        async fn three(&self) -> RpcResult<u8>;
    }
}

struct Server;

impl Absolute for Server {
    async fn one(&self) -> RpcResult<u8> {
        Ok(1)
    }
}

impl Renamed for Server {
    async fn two(&self) -> RpcResult<u8> {
        Ok(2)
    }
}

impl nested::Nested for Server {
    async fn three(&self) -> RpcResult<u8> {
        Ok(3)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let router = Router::builder()
        .service(Absolute::into_service(Server))
        .service(Renamed::into_service(Server))
        .service(nested::Nested::into_service(Server))
        .build()
        .unwrap();
    let transport = InProcess::new(router);
    assert_eq!(
        AbsoluteClient::new(transport.clone()).one().await.unwrap(),
        1
    );
    assert_eq!(
        RenamedClient::new(transport.clone()).two().await.unwrap(),
        2
    );
    assert_eq!(
        nested::NestedClient::new(transport).three().await.unwrap(),
        3
    );
}
