//! Wire names: `#[rpc(rename_all = "camelCase")]` and `#[arg(rename)]` set
//! the keys of named params in decoding, in the generated client, in the
//! `-32602` data and in the OpenRPC document; positional params and the
//! Rust names are untouched.

use serde_json::{Value, json};
use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

use crate::support::{call, code_of, error_of, result_of};

#[rpc(rename_all = "camelCase", param_style = "named")]
pub trait Tasks {
    /// `task_id` is `taskId`, `history_length` is `historyLength`.
    #[method(name = "GetTask")]
    async fn get_task(&self, task_id: String, history_length: Option<u32>) -> RpcResult<Value>;

    /// A rename wins over the case: `r#type` travels as `kind`.
    #[method(name = "ListTasks")]
    async fn list_tasks(
        &self,
        context_id: Option<String>,
        #[arg(rename = "kind")] r#type: Option<String>,
    ) -> RpcResult<Value>;
}

#[rpc(namespace = "lsp", namespace_separator = "/")]
pub trait Untouched {
    /// Without `rename_all`, a rename alone.
    #[method(name = "hover")]
    async fn hover(
        &self,
        #[arg(rename = "textDocument")] text_document: String,
    ) -> RpcResult<String>;
}

struct Server;

impl Tasks for Server {
    async fn get_task(&self, task_id: String, history_length: Option<u32>) -> RpcResult<Value> {
        Ok(json!({"id": task_id, "history": history_length}))
    }

    async fn list_tasks(
        &self,
        context_id: Option<String>,
        r#type: Option<String>,
    ) -> RpcResult<Value> {
        Ok(json!({"context": context_id, "kind": r#type}))
    }
}

impl Untouched for Server {
    async fn hover(&self, text_document: String) -> RpcResult<String> {
        Ok(text_document)
    }
}

fn router() -> Router {
    Router::builder()
        .service(TasksService::new(Server))
        .service(UntouchedService::new(Server))
        .build()
        .unwrap()
}

async fn ask(method: &str, params: &str) -> Value {
    let request = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":1}}"#);
    call(&router(), &request).await
}

#[tokio::test]
async fn named_params_are_decoded_by_their_wire_names() {
    assert_eq!(
        result_of(&ask("GetTask", r#"{"taskId": "t1", "historyLength": 3}"#).await),
        &json!({"id": "t1", "history": 3})
    );
    assert_eq!(
        result_of(&ask("ListTasks", r#"{"contextId": "c", "kind": "open"}"#).await),
        &json!({"context": "c", "kind": "open"})
    );
    assert_eq!(
        result_of(&ask("lsp/hover", r#"{"textDocument": "a.rs"}"#).await),
        "a.rs"
    );
    // Positional params know no names.
    assert_eq!(
        result_of(&ask("GetTask", r#"["t2"]"#).await),
        &json!({"id": "t2", "history": null})
    );
}

#[tokio::test]
async fn the_rust_names_are_not_wire_names_and_errors_say_the_wire_names() {
    let reply = ask("GetTask", r#"{"task_id": "t1"}"#).await;
    assert_eq!(code_of(&reply), -32602, "{reply}");
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "task_id", "reason": "unknown param; expected one of `taskId`, `historyLength`"})
    );
    let reply = ask("GetTask", r#"{"historyLength": 1}"#).await;
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "taskId", "position": 0, "reason": "missing required param"})
    );
    let reply = ask("GetTask", r#"{"taskId": 7}"#).await;
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "taskId", "position": 0, "reason": "invalid type: integer `7`, expected a string"})
    );
    let reply = ask("ListTasks", r#"{"type": "open"}"#).await;
    assert_eq!(error_of(&reply)["data"]["param"], "type", "{reply}");
}

#[tokio::test]
async fn the_generated_client_sends_the_wire_names() {
    let client = TasksClient::new(InProcess::new(router()));
    assert_eq!(
        client.get_task("t1".into(), Some(2)).await.unwrap(),
        json!({"id": "t1", "history": 2})
    );
    assert_eq!(
        client.list_tasks(None, Some("open".into())).await.unwrap(),
        json!({"context": null, "kind": "open"})
    );
    let info = TasksService::<()>::INFO.methods();
    let names: Vec<&str> = info[0].param_list().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["taskId", "historyLength"]);
    assert_eq!(info[1].param_list()[1].name(), "kind");
}

#[test]
fn the_openrpc_document_names_the_params_by_their_wire_names() {
    let document = typed_rpc::schema::Document::new("Tasks", "1.0.0")
        .service(TasksService::<()>::INFO)
        .service(UntouchedService::<()>::INFO)
        .to_json();
    let names = |method: usize| -> Vec<Value> {
        document["methods"][method]["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|param| param["name"].clone())
            .collect()
    };
    assert_eq!(names(0), [json!("taskId"), json!("historyLength")]);
    assert_eq!(names(1), [json!("contextId"), json!("kind")]);
    assert_eq!(names(2), [json!("textDocument")]);
}
