//! A request without `params` when the method needs none of them: a
//! `#[params]` struct whose fields are all optional or defaulted decodes as
//! from `{}`, plain arguments that are all `Option`s are all `None`, and a
//! required field or argument is still named in the `-32602`.
//!
//! The A2A specification's own `GetExtendedAgentCard` example has no
//! `params`, and `ListTasks` is often called without them.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typed_rpc::client::InProcess;
use typed_rpc::{Router, RpcResult, rpc};

use crate::support::{call, code_of, error_of, result_of};

/// Every field optional, as A2A's `GetExtendedAgentCardRequest`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardRequest {
    pub tenant: Option<String>,
}

/// Every field with a default, one of them not an `Option`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListTasksRequest {
    pub context_id: Option<String>,
    pub page_size: u32,
}

impl Default for ListTasksRequest {
    fn default() -> Self {
        ListTasksRequest {
            context_id: None,
            page_size: 50,
        }
    }
}

/// A required field beside an optional one.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    pub id: String,
    pub history_length: Option<u32>,
}

#[rpc]
pub trait Agent {
    #[method(name = "GetExtendedAgentCard")]
    async fn card(&self, #[params] request: CardRequest) -> RpcResult<Value>;

    #[method(name = "ListTasks")]
    async fn list(&self, #[params] request: ListTasksRequest) -> RpcResult<Value>;

    #[method(name = "GetTask")]
    async fn get(&self, #[params] request: GetTaskRequest) -> RpcResult<Value>;

    /// A whole `params` that may itself be absent.
    #[method(name = "maybe")]
    async fn maybe(&self, #[params] request: Option<GetTaskRequest>) -> RpcResult<bool>;

    /// Plain arguments, all optional.
    #[method(name = "search")]
    async fn search(&self, query: Option<String>, limit: Option<u32>) -> RpcResult<Value>;

    /// Plain arguments, the second required.
    #[method(name = "page")]
    async fn page(&self, cursor: Option<String>, size: u32) -> RpcResult<Value>;
}

struct Impl;

impl Agent for Impl {
    async fn card(&self, request: CardRequest) -> RpcResult<Value> {
        Ok(json!({"tenant": request.tenant}))
    }

    async fn list(&self, request: ListTasksRequest) -> RpcResult<Value> {
        Ok(json!({"contextId": request.context_id, "pageSize": request.page_size}))
    }

    async fn get(&self, request: GetTaskRequest) -> RpcResult<Value> {
        Ok(json!({"id": request.id, "historyLength": request.history_length}))
    }

    async fn maybe(&self, request: Option<GetTaskRequest>) -> RpcResult<bool> {
        Ok(request.is_some())
    }

    async fn search(&self, query: Option<String>, limit: Option<u32>) -> RpcResult<Value> {
        Ok(json!([query, limit]))
    }

    async fn page(&self, cursor: Option<String>, size: u32) -> RpcResult<Value> {
        Ok(json!([cursor, size]))
    }
}

fn router() -> Router {
    Router::new(Impl.into_service())
}

/// The reply to `method` sent without a `params` member.
async fn without_params(method: &str) -> Value {
    call(
        &router(),
        &format!(r#"{{"jsonrpc":"2.0","id":6,"method":"{method}"}}"#),
    )
    .await
}

/// The reply to `method` sent with `params`.
async fn with_params(method: &str, params: &str) -> Value {
    call(
        &router(),
        &format!(r#"{{"jsonrpc":"2.0","id":6,"method":"{method}","params":{params}}}"#),
    )
    .await
}

#[tokio::test]
async fn the_specifications_get_extended_agent_card_example_is_answered() {
    let reply = call(
        &router(),
        r#"{"jsonrpc":"2.0","id":6,"method":"GetExtendedAgentCard"}"#,
    )
    .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "result": {"tenant": null}, "id": 6})
    );
}

#[tokio::test]
async fn an_all_optional_or_defaulted_params_struct_decodes_absent_params_as_an_empty_object() {
    for method in ["GetExtendedAgentCard", "ListTasks"] {
        let absent = without_params(method).await;
        let empty = with_params(method, "{}").await;
        assert_eq!(absent, empty, "{method}");
    }
    // The defaults are the struct's own, not zeros.
    assert_eq!(
        result_of(&without_params("ListTasks").await),
        &json!({"contextId": null, "pageSize": 50})
    );
}

#[tokio::test]
async fn absent_params_still_name_a_required_field_of_the_struct() {
    let reply = without_params("GetTask").await;
    assert_eq!(code_of(&reply), -32602, "{reply}");
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "request", "reason": "missing params: missing field `id`"})
    );
    // As `{}` names it.
    let reply = with_params("GetTask", "{}").await;
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "request", "reason": "missing field `id`"})
    );
}

#[tokio::test]
async fn an_optional_whole_params_is_none_when_absent() {
    assert_eq!(result_of(&without_params("maybe").await), false);
    assert_eq!(
        result_of(&with_params("maybe", r#"{"id": "t1"}"#).await),
        true
    );
}

#[tokio::test]
async fn plain_arguments_that_are_all_options_accept_absent_params() {
    assert_eq!(
        result_of(&without_params("search").await),
        &json!([null, null])
    );
    let reply = without_params("page").await;
    assert_eq!(code_of(&reply), -32602, "{reply}");
    assert_eq!(
        error_of(&reply)["data"],
        json!({"param": "size", "position": 1, "reason": "missing required param"})
    );
}

#[tokio::test]
async fn the_generated_client_calls_them_with_nothing_to_send() {
    let client = AgentClient::new(InProcess::new(router()));
    assert_eq!(
        client.card(CardRequest::default()).await.unwrap(),
        json!({"tenant": null})
    );
    assert_eq!(
        client.list(ListTasksRequest::default()).await.unwrap()["pageSize"],
        50
    );
    assert!(!client.maybe(None).await.unwrap());
    assert_eq!(
        client.search(None, None).await.unwrap(),
        json!([null, null])
    );
}
