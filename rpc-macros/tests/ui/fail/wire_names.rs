// Wire names gone wrong, each reported where it is, all in one compilation:
// a case serde does not know, two params with one wire name (by a rename and
// by the case), a rename of the whole params or of the context, an unknown
// key and an empty name. The trait and the methods without errors are still
// generated: the impl and the client call below report nothing.
use serde::{Deserialize, Serialize};
use typed_rpc::client::InProcess;
use typed_rpc::{Context, Router, RpcResult, rpc};

#[derive(Serialize, Deserialize)]
pub struct Query {
    pub text: String,
}

#[rpc(rename_all = "camel_case")]
pub trait Typo {
    #[method(name = "get")]
    async fn get(&self, task_id: String) -> RpcResult<String>;
}

#[rpc(rename_all = "camelCase")]
pub trait Tasks {
    #[method(name = "get")]
    async fn get(&self, task_id: String, #[arg(rename = "taskId")] id: String) -> RpcResult<String>;

    #[method(name = "list")]
    async fn list(&self, page_size: u32, pageSize: u32) -> RpcResult<u32>;

    #[method(name = "find")]
    async fn find(&self, #[arg(rename = "q")] #[params] query: Query) -> RpcResult<String>;

    #[method(name = "whoami")]
    async fn whoami(&self, #[arg(rename = "cx")] #[context] cx: &Context) -> RpcResult<String>;

    #[method(name = "count")]
    async fn count(&self, #[arg(renamed = "n")] number: u32, #[arg(rename = "")] other: u32) -> RpcResult<u32>;

    #[method(name = "ok")]
    async fn ok(&self, history_length: Option<u32>) -> RpcResult<u32>;
}

struct Server;

impl Tasks for Server {
    async fn get(&self, task_id: String, _id: String) -> RpcResult<String> {
        Ok(task_id)
    }

    #[allow(non_snake_case)]
    async fn list(&self, page_size: u32, _pageSize: u32) -> RpcResult<u32> {
        Ok(page_size)
    }

    async fn find(&self, query: Query) -> RpcResult<String> {
        Ok(query.text)
    }

    async fn whoami(&self, _cx: &Context) -> RpcResult<String> {
        Ok(String::new())
    }

    async fn count(&self, number: u32, _other: u32) -> RpcResult<u32> {
        Ok(number)
    }

    async fn ok(&self, history_length: Option<u32>) -> RpcResult<u32> {
        Ok(history_length.unwrap_or(0))
    }
}

async fn call() {
    let client = TasksClient::new(InProcess::new(Router::new(Server.into_service())));
    let _ = client.ok(None).await;
}

fn main() {
    drop(call());
}
