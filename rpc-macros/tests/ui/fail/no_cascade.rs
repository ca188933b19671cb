// A method with an error is left out of the generated service and client, and
// everything else is still generated: the code that implements the trait and
// uses its service and client reports nothing beyond the one error.
use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Counter {
    #[method(name = "get")]
    async fn get(&self) -> RpcResult<u64>;

    #[method(name = "increment")]
    async fn increment(&mut self) -> RpcResult<u64>;
}

struct Server(u64);

impl Counter for Server {
    async fn get(&self) -> RpcResult<u64> {
        Ok(self.0)
    }

    async fn increment(&mut self) -> RpcResult<u64> {
        self.0 += 1;
        Ok(self.0)
    }
}

async fn run() -> u64 {
    let router = Router::new(Server(0).into_service());
    let client = CounterClient::new(InProcess::new(router));
    client.get().await.unwrap()
}

fn main() {
    let _ = run();
}
