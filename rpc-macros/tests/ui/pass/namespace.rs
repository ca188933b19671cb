//! `namespace` and `namespace_separator` prefix every wire name; aliases are
//! taken as written.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc(namespace = "math", namespace_separator = ".")]
pub trait Math {
    #[method(name = "add", aliases = ["plus", "math_add"])]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// No `name`: the wire name is the Rust name, `math.negate`.
    #[method]
    async fn negate(&self, a: i64) -> RpcResult<i64>;
}

struct Server;

impl Math for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn negate(&self, a: i64) -> RpcResult<i64> {
        Ok(-a)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let names: Vec<_> = MathService::INFO
        .methods()
        .iter()
        .map(|m| m.name())
        .collect();
    assert_eq!(names, ["math.add", "math.negate"]);

    let router = Router::new(Server.into_service());
    for request in [
        r#"{"jsonrpc":"2.0","method":"math.add","params":[1,2],"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"plus","params":[1,2],"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"math_add","params":{"a":1,"b":2},"id":1}"#,
    ] {
        let reply = router.handle(request.as_bytes()).await.unwrap();
        assert_eq!(reply, r#"{"jsonrpc":"2.0","result":3,"id":1}"#);
    }

    let client = MathClient::new(InProcess::new(router));
    assert_eq!(client.add(2, 3).await.unwrap(), 5);
    assert_eq!(client.negate(2).await.unwrap(), -2);
}
