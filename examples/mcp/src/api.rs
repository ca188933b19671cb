//! MCP's two sides as `#[rpc]` traits: [`McpServer`], the methods a server
//! answers (its generated [`McpServerClient`] is the typed client of any
//! MCP server), and [`McpHost`], the methods a host answers for its
//! servers (its generated [`McpHostClient`] is how a tool asks the host for
//! a sample, an answer from the user or the roots).

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use typed_rpc::{Context, RpcResult, rpc};

use crate::types::*;

/// The methods of an MCP server, both generations. Params are sent by
/// name; members this crate does not know are ignored, as extensions add
/// their own.
#[rpc(allow_unknown_params, param_style = "named")]
pub trait McpServer {
    /// Opens a classic session: negotiates the version, exchanges
    /// capabilities.
    #[method(name = "initialize")]
    async fn initialize(
        &self,
        #[context] cx: &Context,
        #[params] params: InitializeParams,
    ) -> RpcResult<InitializeResult>;

    /// The client is ready (classic generation).
    #[notification(name = "notifications/initialized")]
    async fn initialized(&self, #[context] cx: &Context, #[params] params: Option<PaginatedParams>);

    /// Answers at once: the connection is alive.
    #[method(name = "ping")]
    async fn ping(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<EmptyResult>;

    /// The versions, capabilities and identity of the server (2026-07-28).
    #[method(name = "server/discover")]
    async fn discover(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<DiscoverResult>;

    /// One page of the tools.
    #[method(name = "tools/list")]
    async fn list_tools(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<ListToolsResult>;

    /// Runs a tool.
    #[method(name = "tools/call")]
    async fn call_tool(
        &self,
        #[context] cx: &Context,
        #[params] params: CallToolParams,
    ) -> RpcResult<Outcome<CallToolResult>>;

    /// One page of the resources.
    #[method(name = "resources/list")]
    async fn list_resources(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<ListResourcesResult>;

    /// One page of the resource templates.
    #[method(name = "resources/templates/list")]
    async fn list_resource_templates(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<ListResourceTemplatesResult>;

    /// Reads a resource.
    #[method(name = "resources/read")]
    async fn read_resource(
        &self,
        #[context] cx: &Context,
        #[params] params: ResourceParams,
    ) -> RpcResult<Outcome<ReadResourceResult>>;

    /// Sends `notifications/resources/updated` when the resource changes
    /// (classic generation).
    #[method(name = "resources/subscribe")]
    async fn subscribe(
        &self,
        #[context] cx: &Context,
        #[params] params: ResourceParams,
    ) -> RpcResult<EmptyResult>;

    /// Stops a subscription (classic generation).
    #[method(name = "resources/unsubscribe")]
    async fn unsubscribe(
        &self,
        #[context] cx: &Context,
        #[params] params: ResourceParams,
    ) -> RpcResult<EmptyResult>;

    /// One page of the prompts.
    #[method(name = "prompts/list")]
    async fn list_prompts(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<ListPromptsResult>;

    /// A prompt's messages, its arguments filled in.
    #[method(name = "prompts/get")]
    async fn get_prompt(
        &self,
        #[context] cx: &Context,
        #[params] params: GetPromptParams,
    ) -> RpcResult<Outcome<GetPromptResult>>;

    /// Suggests values for a prompt's or template's argument.
    #[method(name = "completion/complete")]
    async fn complete(
        &self,
        #[context] cx: &Context,
        #[params] params: CompleteParams,
    ) -> RpcResult<CompleteResult>;

    /// Sets the least severe log level the session hears of (classic generation).
    #[method(name = "logging/setLevel")]
    async fn set_level(
        &self,
        #[context] cx: &Context,
        #[params] params: SetLevelParams,
    ) -> RpcResult<EmptyResult>;

    /// Streams the changes the filter asks for, as notifications, until
    /// cancelled (2026-07-28).
    #[method(name = "subscriptions/listen")]
    async fn listen(
        &self,
        #[context] cx: &Context,
        #[params] params: ListenParams,
    ) -> RpcResult<EmptyResult>;

    /// The host's roots changed (classic generation).
    #[notification(name = "notifications/roots/list_changed")]
    async fn roots_changed(
        &self,
        #[context] cx: &Context,
        #[params] params: Option<PaginatedParams>,
    );
}

/// The methods a host answers for the servers it runs: a tool reaches them
/// through [`McpHostClient`], the host implements them for its client.
#[rpc(allow_unknown_params, param_style = "named")]
pub trait McpHost {
    /// Samples the host's model.
    #[method(name = "sampling/createMessage")]
    async fn create_message(
        &self,
        #[params] params: CreateMessageParams,
    ) -> RpcResult<CreateMessageResult>;

    /// Asks the host's user.
    #[method(name = "elicitation/create")]
    async fn elicit(&self, #[params] params: ElicitParams) -> RpcResult<ElicitResult>;

    /// The host's roots.
    #[method(name = "roots/list")]
    async fn list_roots(
        &self,
        #[params] params: Option<PaginatedParams>,
    ) -> RpcResult<ListRootsResult>;

    /// Answers at once: the connection is alive.
    #[method(name = "ping")]
    async fn ping(&self, #[params] params: Option<PaginatedParams>) -> RpcResult<EmptyResult>;
}

/// The result of a request that may ask for input first (2026-07-28):
/// `tools/call`, `prompts/get` and `resources/read`.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<T> {
    /// The result.
    Complete(T),
    /// Input is needed: answer it and retry.
    InputRequired(InputRequiredResult),
}

impl<T> Outcome<T> {
    /// The result, if complete.
    pub fn complete(self) -> Option<T> {
        match self {
            Outcome::Complete(result) => Some(result),
            Outcome::InputRequired(_) => None,
        }
    }
}

impl<T: Serialize> Serialize for Outcome<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Complete(result) => result.serialize(serializer),
            Outcome::InputRequired(result) => result.serialize(serializer),
        }
    }
}

/// Told apart by `resultType`, as the specification says; a result
/// without it is complete.
impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let input_required =
            value.get("resultType").and_then(Value::as_str) == Some("input_required");
        match input_required {
            true => serde_json::from_value(value).map(Outcome::InputRequired),
            false => serde_json::from_value(value).map(Outcome::Complete),
        }
        .map_err(de::Error::custom)
    }
}
