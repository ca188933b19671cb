//! Our client and our server in one process, over an in-memory stream:
//! a tool that waits on the client (sampling) never blocks the
//! connection, however many such calls run at once, and a cancelled
//! call's future is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use typed_rpc::{Context, RpcResult, rpc};
use typed_rpc_mcp::McpHost;
use typed_rpc_mcp::client::{Client, Mode};
use typed_rpc_mcp::server::{McpContext, Server, serve_stream};
use typed_rpc_mcp::types::*;

#[rpc]
pub trait Asking {
    /// Asks the host's model to repeat `word`.
    #[method(name = "echo_by_model")]
    async fn echo_by_model(&self, #[context] cx: &Context, word: String) -> RpcResult<String>;
}

struct Tools;

impl Asking for Tools {
    async fn echo_by_model(&self, cx: &Context, word: String) -> RpcResult<String> {
        let params = CreateMessageParams::new(vec![SamplingMessage::text(Role::User, word)], 10);
        let answer = cx
            .mcp()
            .host()
            .create_message(params)
            .await
            .map_err(|err| typed_rpc::ErrorObject::new(-32000, err.to_string()))?;
        Ok(answer.content.text().unwrap_or_default().to_owned())
    }
}

/// A host whose model answers slowly, so that every call waits at once.
#[derive(Clone, Default)]
struct SlowModel(Arc<AtomicUsize>);

impl McpHost for SlowModel {
    async fn create_message(&self, params: CreateMessageParams) -> RpcResult<CreateMessageResult> {
        self.0.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ok(CreateMessageResult {
            role: Role::Assistant,
            content: params.messages[0].content.clone(),
            model: "echo".into(),
            stop_reason: None,
            meta: None,
        })
    }

    async fn elicit(&self, _: ElicitParams) -> RpcResult<ElicitResult> {
        Err(typed_rpc::ErrorObject::method_not_found())
    }

    async fn list_roots(&self, _: Option<PaginatedParams>) -> RpcResult<ListRootsResult> {
        Ok(ListRootsResult::default())
    }

    async fn ping(&self, _: Option<PaginatedParams>) -> RpcResult<EmptyResult> {
        Ok(EmptyResult::default())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_tools_waiting_on_the_client_at_once_all_finish() {
    let server = Server::builder(Implementation::new("asking", "1.0"))
        .tools(Tools.into_service())
        .build()
        .unwrap();
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(theirs);
    let handle = serve_stream(&server, server_read, server_write);
    let (read, write) = tokio::io::split(ours);
    let model = SlowModel::default();
    let client = Client::builder(Implementation::new("asker", "1.0"))
        .host(model.clone())
        .mode(Mode::Classic)
        .connect_stream(read, write)
        .await
        .unwrap();
    let client = Arc::new(client);
    // More than the connection's 64 requests in flight, every one of them
    // waiting on the client's answer.
    let calls: Vec<_> = (0..200)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool("echo_by_model", json!({"word": format!("w{i}")}))
                    .await
            })
        })
        .collect();
    let all = async {
        for (i, call) in calls.into_iter().enumerate() {
            let result = call.await.unwrap().unwrap();
            assert_eq!(result.joined_text(), format!("w{i}"));
        }
    };
    tokio::time::timeout(Duration::from_secs(20), all)
        .await
        .expect("no deadlock");
    assert_eq!(model.0.load(Ordering::Relaxed), 200);
    drop(client);
    tokio::time::timeout(Duration::from_secs(5), handle.stopped())
        .await
        .expect("the server stops");
}
