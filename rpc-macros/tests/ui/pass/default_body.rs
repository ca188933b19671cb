//! A method with a default body need not be implemented, and can call the
//! trait's other methods.

use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Health {
    #[method(name = "version")]
    async fn version(&self) -> RpcResult<String>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".to_owned())
    }

    #[method(name = "status")]
    async fn status(&self, verbose: bool) -> RpcResult<String> {
        let version = self.version().await?;
        Ok(if verbose {
            format!("up, version {version}")
        } else {
            "up".to_owned()
        })
    }

    #[notification(name = "touch")]
    async fn touch(&self) {}
}

struct Server;

impl Health for Server {
    async fn version(&self) -> RpcResult<String> {
        Ok("1.0".to_owned())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = HealthClient::new(InProcess::new(Router::new(Server.into_service())));
    assert_eq!(client.ping().await.unwrap(), "pong");
    assert_eq!(client.status(true).await.unwrap(), "up, version 1.0");
    client.touch().await.unwrap();
}
