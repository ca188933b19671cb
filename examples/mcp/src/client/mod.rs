//! A typed MCP client: runs a server as a child process or reaches it over
//! Streamable HTTP, speaks whichever generation the server does (it asks
//! `server/discover` first and falls back to `initialize`), lists and
//! calls tools, and answers the server's sampling, elicitation and roots
//! requests through the [`McpHost`] the host implements, in both
//! generations' ways.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`Client`], [`Builder`], the generations, input requests |
//! | `link.rs` | the way to the server: a child process or HTTP; the 2026-07-28 `_meta` |
//! | `http.rs` | Streamable HTTP from the client's side |
//! | `notifications.rs` | the server's notifications, for listeners |

mod events;
mod http;
mod link;
mod notifications;

use std::future::Future;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use typed_rpc::client::Transport;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::{CancelPolicy, ClientError, ErrorObject, Response, Router, RpcResult};

pub use link::Link;
pub use notifications::{ServerNotification, ServerNotifications, ServerNotificationsClient};

use crate::ProtocolVersion;
use crate::api::{McpHost, McpServerClient, Outcome};
use crate::mirrored;
use crate::types::*;
use notifications::Relay;

/// How many `input_required` rounds a call may take before it gives up.
const MAX_INPUT_ROUNDS: usize = 16;

/// Which generation a client speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Ask `server/discover` first; fall back to `initialize` on any error.
    #[default]
    Auto,
    /// Only the classic `initialize` handshake.
    Classic,
    /// Only the stateless 2026-07-28 generation.
    Stateless,
}

/// A connected client.
pub struct Client {
    server: McpServerClient<Link>,
    host: Router,
    relay: Relay,
    version: ProtocolVersion,
    server_info: Option<Implementation>,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
}

/// Builds a [`Client`].
#[must_use = "a builder does nothing until it connects"]
pub struct Builder {
    info: Implementation,
    capabilities: ClientCapabilities,
    host: Router,
    relay: Relay,
    mode: Mode,
    timeout: Option<Duration>,
}

/// A host that answers no request of the server.
struct NoHost;

impl McpHost for NoHost {
    async fn create_message(&self, _: CreateMessageParams) -> RpcResult<CreateMessageResult> {
        Err(ErrorObject::method_not_found())
    }

    async fn elicit(&self, _: ElicitParams) -> RpcResult<ElicitResult> {
        Err(ErrorObject::method_not_found())
    }

    async fn list_roots(&self, _: Option<PaginatedParams>) -> RpcResult<ListRootsResult> {
        Err(ErrorObject::method_not_found())
    }

    async fn ping(&self, _: Option<PaginatedParams>) -> RpcResult<EmptyResult> {
        Ok(EmptyResult::default())
    }
}

/// The router answering the server: the host's methods, the server's
/// notifications, and MCP's cancel notification.
fn host_router(host: impl McpHost, relay: &Relay) -> Router {
    Router::builder()
        .service(host.into_service())
        .service(ServerNotifications::into_service(relay.clone()))
        .cancel_notification(CancelPolicy::mcp())
        .build()
        .expect("the host's and the notifications' methods differ")
}

impl Client {
    /// A builder for the client `info` names.
    pub fn builder(info: Implementation) -> Builder {
        let relay = Relay::new();
        Builder {
            info,
            capabilities: ClientCapabilities::default(),
            host: host_router(NoHost, &relay),
            relay,
            mode: Mode::Auto,
            timeout: Some(Duration::from_secs(300)),
        }
    }

    /// The protocol version spoken.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// Who the server said it is.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.server_info.as_ref()
    }

    /// What the server offers.
    pub fn server_capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// How to use the server, for the model.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The typed client of the server's methods, for what this type does
    /// not wrap (in the 2026-07-28 generation its requests carry the
    /// protocol's `_meta` all the same).
    pub fn server(&self) -> &McpServerClient<Link> {
        &self.server
    }

    /// The server's notifications from now on.
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.relay.subscribe()
    }

    /// Every tool, all pages; a tool whose `x-mcp-header` annotations
    /// are invalid is left out (its calls could not carry them).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools = all_pages(|params| async {
            let page = self.server.list_tools(Some(params)).await?;
            Ok((page.tools, page.next_cursor))
        })
        .await?;
        tools.retain(|tool| match mirrored::of_schema(&tool.input_schema) {
            Ok(marked) => {
                self.server.transport().learn(&tool.name, marked);
                true
            }
            Err(_) => false,
        });
        Ok(tools)
    }

    /// Calls the tool `name` with `arguments` (an object); input the
    /// server asks for on the way (2026-07-28) is answered by the host.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let arguments = serde_json::value::to_raw_value(&arguments).map_err(ClientError::Encode)?;
        self.call_tool_with(CallToolParams::new(name, Some(arguments)))
            .await
    }

    /// Calls a tool with `params` (to set `_meta.progressToken`, say).
    pub async fn call_tool_with(
        &self,
        mut params: CallToolParams,
    ) -> Result<CallToolResult, ClientError> {
        let mut relisted = false;
        for _ in 0..MAX_INPUT_ROUNDS {
            let outcome = match self.server.call_tool(params.clone()).await {
                // The headers the tool wants were not known: learn them once.
                Err(err)
                    if !relisted
                        && err.rpc_error().map(ErrorObject::code)
                            == Some(crate::error::code::HEADER_MISMATCH) =>
                {
                    relisted = true;
                    self.list_tools().await?;
                    continue;
                }
                outcome => outcome?,
            };
            match outcome {
                Outcome::Complete(result) => return Ok(result),
                Outcome::InputRequired(asked) => {
                    params.input_responses = Some(
                        self.answer(asked.input_requests.unwrap_or_default())
                            .await?,
                    );
                    params.request_state = asked.request_state;
                }
            }
        }
        Err(too_many_rounds())
    }

    /// Every resource, all pages.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        all_pages(|params| async {
            let page = self.server.list_resources(Some(params)).await?;
            Ok((page.resources, page.next_cursor))
        })
        .await
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.with_input(ResourceParams::new(uri), |params| {
            self.server.read_resource(params)
        })
        .await
    }

    /// Every prompt, all pages.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        all_pages(|params| async {
            let page = self.server.list_prompts(Some(params)).await?;
            Ok((page.prompts, page.next_cursor))
        })
        .await
    }

    /// The prompt `name` with `arguments` filled in.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (String, String)>,
    ) -> Result<GetPromptResult, ClientError> {
        let params = GetPromptParams {
            name: name.to_owned(),
            arguments: Some(arguments.into_iter().collect()),
            meta: None,
            input_responses: None,
            request_state: None,
        };
        self.with_input(params, |params| self.server.get_prompt(params))
            .await
    }

    /// Ends the connection: the child process exits, the HTTP session ends.
    pub async fn close(self) {
        self.server.into_transport().close().await;
    }

    /// Sends `params` with `send` until the result is complete, answering
    /// with the host the input each `input_required` result asks for.
    async fn with_input<P, T, F, R>(&self, mut params: P, send: F) -> Result<T, ClientError>
    where
        P: Retried + Clone,
        F: Fn(P) -> R,
        R: Future<Output = Result<Outcome<T>, ClientError>>,
    {
        for _ in 0..MAX_INPUT_ROUNDS {
            match send(params.clone()).await? {
                Outcome::Complete(result) => return Ok(result),
                Outcome::InputRequired(asked) => {
                    let answers = self
                        .answer(asked.input_requests.unwrap_or_default())
                        .await?;
                    params.retry_with(answers, asked.request_state);
                }
            }
        }
        Err(too_many_rounds())
    }

    /// The host's answers to `requests`, by their keys.
    async fn answer(&self, requests: InputRequests) -> Result<InputResponses, ClientError> {
        let mut answers = InputResponses::new();
        for (key, request) in requests {
            let call = serde_json::json!({
                "jsonrpc": "2.0",
                "id": 0,
                "method": request.method,
                "params": request.params.unwrap_or_else(|| serde_json::json!({})),
            });
            let reply = self
                .host
                .handle(call.to_string().as_bytes())
                .await
                .unwrap_or_default();
            let response: Response<'_> = serde_json::from_str(&reply).map_err(|err| {
                ClientError::Decode(typed_rpc::client::DecodeError::invalid_response(err))
            })?;
            let result = response.into_result().map_err(ClientError::Rpc)?;
            let value: Value = serde_json::from_str(result.get()).map_err(|err| {
                ClientError::Decode(typed_rpc::client::DecodeError::result_type(err))
            })?;
            answers.insert(key, value);
        }
        Ok(answers)
    }
}

/// Every item of a list, fetched page by page with `fetch`.
async fn all_pages<T, F, R>(fetch: F) -> Result<Vec<T>, ClientError>
where
    F: Fn(PaginatedParams) -> R,
    R: Future<Output = Result<(Vec<T>, Option<Cursor>), ClientError>>,
{
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let (items, next) = fetch(PaginatedParams { cursor, meta: None }).await?;
        all.extend(items);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

/// The params of a request the 2026-07-28 generation may ask input for.
trait Retried {
    /// These params, for the retry that brings `answers` and `state`.
    fn retry_with(&mut self, answers: InputResponses, state: Option<String>);
}

impl Retried for CallToolParams {
    fn retry_with(&mut self, answers: InputResponses, state: Option<String>) {
        (self.input_responses, self.request_state) = (Some(answers), state);
    }
}

impl Retried for ResourceParams {
    fn retry_with(&mut self, answers: InputResponses, state: Option<String>) {
        (self.input_responses, self.request_state) = (Some(answers), state);
    }
}

impl Retried for GetPromptParams {
    fn retry_with(&mut self, answers: InputResponses, state: Option<String>) {
        (self.input_responses, self.request_state) = (Some(answers), state);
    }
}

#[cold]
fn too_many_rounds() -> ClientError {
    ClientError::Rpc(ErrorObject::new(
        -32000,
        format!("the server asked for input more than {MAX_INPUT_ROUNDS} times"),
    ))
}

impl Builder {
    /// Answers the server's sampling, elicitation and roots requests with
    /// `host`, and declares those capabilities (unless
    /// [`capabilities`](Builder::capabilities) says otherwise).
    pub fn host(mut self, host: impl McpHost) -> Self {
        self.host = host_router(host, &self.relay);
        if self.capabilities == ClientCapabilities::default() {
            self.capabilities = ClientCapabilities {
                sampling: Some(Default::default()),
                elicitation: Some(Default::default()),
                roots: Some(Default::default()),
                ..ClientCapabilities::default()
            };
        }
        self
    }

    /// Declares `capabilities`.
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Which generation to speak (default: whichever the server does).
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// How long a request may wait for its response (default five
    /// minutes); `None` waits as long as the server takes.
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = timeout.into();
        self
    }

    /// Runs `command` as the server, over its stdin and stdout.
    pub async fn spawn(self, command: &mut tokio::process::Command) -> Result<Client, ClientError> {
        let child = StreamConnector::new(Framing::Lines)
            .handlers(self.host.clone())
            .spawn(command)
            .map_err(|err| {
                ClientError::Transport(typed_rpc::client::TransportError::with_source(
                    typed_rpc::client::TransportErrorKind::Connect,
                    err,
                ))
            })?;
        let link = Link::child(child, self.timeout);
        self.connect(link).await
    }

    /// Talks to a server over one byte stream (newline-delimited): a
    /// socket, or an in-memory stream to a server of this process (see
    /// [`serve_stream`](crate::server::serve_stream)).
    pub async fn connect_stream<R, W>(self, reader: R, writer: W) -> Result<Client, ClientError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let connection = StreamConnector::new(Framing::Lines)
            .handlers(self.host.clone())
            .connect(reader, writer);
        let link = Link::connection(connection, self.timeout);
        self.connect(link).await
    }

    /// Reaches the server at the Streamable HTTP endpoint `url`.
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        let link = Link::http(http::HttpLink::new(url, self.host.clone(), self.timeout)?);
        self.connect(link).await
    }

    /// Negotiates the generation over `link`.
    async fn connect(self, link: Link) -> Result<Client, ClientError> {
        let mut client = Client {
            server: McpServerClient::new(link),
            host: self.host,
            relay: self.relay,
            version: ProtocolVersion::LATEST_CLASSIC,
            server_info: None,
            capabilities: ServerCapabilities::default(),
            instructions: None,
        };
        let meta = link::protocol_meta(&self.info, &self.capabilities);
        if self.mode != Mode::Classic {
            client.server.transport().go_stateless(meta.clone());
            match client.server.discover(None).await {
                Ok(found)
                    if found
                        .supported_versions
                        .iter()
                        .any(|v| v == ProtocolVersion::LATEST.as_str()) =>
                {
                    client.version = ProtocolVersion::LATEST;
                    client.server_info = found
                        .meta
                        .as_ref()
                        .and_then(|meta| meta.get(meta_keys::SERVER_INFO))
                        .and_then(|info| serde_json::from_value(info.clone()).ok());
                    client.capabilities = found.capabilities;
                    client.instructions = found.instructions;
                    return Ok(client);
                }
                Ok(_) if self.mode == Mode::Stateless => return Err(no_common_version()),
                Err(err) if self.mode == Mode::Stateless => return Err(err),
                // Anything else says the server is of the classic generation.
                Ok(_) | Err(_) => client.server.transport().go_classic(),
            }
        }
        let params = InitializeParams {
            protocol_version: ProtocolVersion::LATEST_CLASSIC.as_str().to_owned(),
            capabilities: self.capabilities,
            client_info: self.info,
            meta: None,
        };
        let initialized = client.server.initialize(params).await?;
        let version = ProtocolVersion::parse(&initialized.protocol_version)
            .filter(|version| !version.is_stateless())
            .ok_or_else(no_common_version)?;
        client.server.transport().speak(version);
        client.server.initialized(None).await?;
        client.server.transport().listen().await;
        client.version = version;
        client.server_info = Some(initialized.server_info);
        client.capabilities = initialized.capabilities;
        client.instructions = initialized.instructions;
        Ok(client)
    }
}

#[cold]
fn no_common_version() -> ClientError {
    ClientError::Rpc(ErrorObject::new(
        -32000,
        "the server speaks no protocol version this client does",
    ))
}

impl Transport for Link {
    async fn send_request(
        &self,
        request: typed_rpc::client::OutgoingRequest<'_>,
    ) -> Result<String, ClientError> {
        self.request(request).await
    }

    async fn send_notification(
        &self,
        notification: typed_rpc::client::OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        self.notify(notification).await
    }
}
