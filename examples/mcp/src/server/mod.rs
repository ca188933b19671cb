//! MCP servers: tools and prompts from `#[rpc]` traits, resources from a
//! [`Resources`] provider, both protocol generations, every transport.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`Server`] and its [`Builder`] |
//! | `handler.rs` | the [`McpServer`](crate::McpServer) methods, per generation |
//! | `lifecycle.rs` | the generations' rules that come before any handler |
//! | `tools.rs`, `prompts.rs` | tools and prompts from `#[rpc]` traits |
//! | `services.rs` | the `#[rpc]` services behind them |
//! | `schema.rs` | the JSON Schemas hosts accept |
//! | `resources.rs` | [`Resources`] and [`Completer`] |
//! | `request.rs` | [`RequestContext`]: progress, logging and host calls for handlers |
//! | `input.rs` | the 2026-07-28 generation's input requests and signed state |
//! | `session.rs` | a classic session's state |
//! | `events.rs` | the changes clients hear of: [`Notifier`] |
//! | `peer.rs` | the way back to the client, whatever the transport |
//! | `stdio.rs` | serving stdio and any byte stream |
//! | `tcp.rs` | serving TCP, a session per connection |

mod events;
mod handler;
mod input;
mod lifecycle;
mod peer;
mod prompts;
mod request;
mod resources;
mod schema;
mod services;
mod session;
mod stdio;
mod tcp;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use typed_rpc::{CancelPolicy, Router, RpcService};

pub use events::{Change, Notifier};
pub use input::StateKey;
pub(crate) use lifecycle::is_stateless;
pub(crate) use peer::{BoxFuture, HOST_CALL_TIMEOUT, Peer, Port};
pub use request::{HostPeer, McpContext, RequestContext};
pub use resources::{Completer, Resources};
pub use schema::SchemaError;
pub(crate) use session::Session;
pub use stdio::{serve_stdio, serve_stream};
pub use tcp::{TcpRunning, serve_tcp};
pub use tools::ServerBuildError;

use crate::McpServer as _;
use crate::types::{
    Implementation, ListChanged, ResourcesCapability, ServerCapabilities, ToolAnnotations,
};

/// An MCP server: serve it with [`serve_stdio`], over Streamable HTTP
/// ([`crate::http`]), or any transport of typed-rpc through
/// [`router`](Server::router). Cheap to clone.
///
/// ```
/// use typed_rpc::{RpcResult, rpc};
/// use typed_rpc_mcp::server::Server;
/// use typed_rpc_mcp::types::Implementation;
///
/// #[rpc]
/// pub trait Calculator {
///     /// Adds two numbers.
///     #[method(name = "add")]
///     async fn add(&self, a: f64, b: f64) -> RpcResult<f64>;
/// }
///
/// struct Calc;
///
/// impl Calculator for Calc {
///     async fn add(&self, a: f64, b: f64) -> RpcResult<f64> {
///         Ok(a + b)
///     }
/// }
///
/// let server = Server::builder(Implementation::new("calculator", "1.0.0"))
///     .tools(Calc.into_service())
///     .build()
///     .unwrap();
/// assert_eq!(server.tools().next().unwrap().name, "add");
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    info: Implementation,
    instructions: Option<String>,
    tools: tools::ToolSet,
    prompts: prompts::PromptSet,
    resources: Option<Box<dyn resources::DynResources>>,
    completer: Option<Box<dyn resources::DynCompleter>>,
    capabilities: ServerCapabilities,
    notifier: Notifier,
    state_key: StateKey,
    page_size: Option<usize>,
    cache_ttl: Duration,
}

/// Builds a [`Server`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder {
    info: Implementation,
    instructions: Option<String>,
    tools: tools::ToolsBuilder,
    prompts: prompts::PromptsBuilder,
    resources: Vec<Box<dyn resources::DynResources>>,
    completers: Vec<Box<dyn resources::DynCompleter>>,
    notifier: Notifier,
    state_key: Option<StateKey>,
    page_size: Option<usize>,
    cache_ttl: Duration,
}

impl Server {
    /// A builder for the server `info` names.
    pub fn builder(info: Implementation) -> Builder {
        Builder {
            info,
            instructions: None,
            tools: tools::ToolsBuilder::default(),
            prompts: prompts::PromptsBuilder::default(),
            resources: Vec::new(),
            completers: Vec::new(),
            notifier: Notifier::new(),
            state_key: None,
            page_size: None,
            cache_ttl: Duration::from_secs(60),
        }
    }

    /// Who the server is.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// What the server offers.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.inner.capabilities
    }

    /// The tools, as `tools/list` describes them.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &crate::types::Tool> {
        self.inner.tools.tools()
    }

    /// The arguments of the tool `name` mirrored into `Mcp-Param-*` headers.
    pub(crate) fn mirrored(&self, name: &str) -> &[crate::mirrored::Mirrored] {
        self.inner.tools.mirrored(name)
    }

    /// The notifier through which the server's changes reach its clients.
    pub fn notifier(&self) -> &Notifier {
        &self.inner.notifier
    }

    /// The router of the server's JSON-RPC methods, with the generations'
    /// rules and MCP's cancel notification: serve it on any transport of
    /// typed-rpc. (Classic sessions need a transport that gives each
    /// connection its own: [`serve_stdio`], [`serve_stream`], and this
    /// crate's Streamable HTTP.)
    pub fn router(&self) -> Router {
        Router::builder()
            .service(self.clone().into_service())
            .layer(lifecycle::Lifecycle)
            .cancel_notification(CancelPolicy::mcp())
            .build()
            .expect("one service has no duplicate methods")
    }
}

impl Builder {
    /// How to use the server, for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Serves the methods of `service` (an `#[rpc]` trait's service) as
    /// tools: each method's name is the tool's, its doc comment the
    /// description (``* `arg` - what it is`` lines describe arguments), its
    /// params the `inputSchema`. A string result is a text block; an object
    /// is `structuredContent` (with `outputSchema`) and its JSON as text;
    /// a [`CallToolResult`](crate::types::CallToolResult) is sent as it is.
    /// An error the method returns is a result with `isError`; a bad
    /// argument is `-32602` naming it.
    pub fn tools(mut self, service: impl RpcService) -> Self {
        self.tools.add(service);
        self
    }

    /// Gives the tool `name` its annotations (and their title as its title).
    pub fn annotate(mut self, name: impl Into<String>, annotations: ToolAnnotations) -> Self {
        self.tools.annotate(name.into(), annotations);
        self
    }

    /// Gives the tool `name` this `inputSchema` instead of the one made
    /// from its params: for a schema that says more than the Rust types
    /// (composition, conditions). The params decoding still decides what
    /// is accepted; a schema that promises what it refuses misleads models.
    pub fn input_schema(
        mut self,
        name: impl Into<String>,
        schema: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        self.tools.input_schema(name.into(), schema);
        self
    }

    /// Mirrors the argument `argument` of the tool `tool` into the HTTP
    /// header `Mcp-Param-{header}` (2026-07-28, `x-mcp-header`), for
    /// intermediaries that route on it: clients send the header, the
    /// server refuses a call whose header and argument differ. The
    /// argument must be a string, integer or boolean property.
    pub fn mirror_header(
        mut self,
        tool: impl Into<String>,
        argument: impl Into<String>,
        header: impl Into<String>,
    ) -> Self {
        self.tools
            .mirror_header(tool.into(), argument.into(), header.into());
        self
    }

    /// Serves the methods of `service` as prompts: each method's params are
    /// the arguments (strings), its result the messages (a string is one
    /// user message; `Vec<PromptMessage>` and `GetPromptResult` are sent as
    /// they are).
    pub fn prompts(mut self, service: impl RpcService) -> Self {
        self.prompts.add(service);
        self
    }

    /// Serves `resources`, after those of providers added before.
    pub fn resources(mut self, resources: impl Resources) -> Self {
        self.resources.push(Box::new(resources));
        self
    }

    /// Completes arguments with `completer` (when completers added before
    /// have nothing to suggest).
    pub fn completer(mut self, completer: impl Completer) -> Self {
        self.completers.push(Box::new(completer));
        self
    }

    /// Uses `notifier` to tell clients of changes (one made before the
    /// server, to hand to a resource provider).
    pub fn notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = notifier;
        self
    }

    /// Signs the 2026-07-28 generation's request state with `key` (default:
    /// a random key of this process): give servers that share traffic one key.
    pub fn state_key(mut self, key: StateKey) -> Self {
        self.state_key = Some(key);
        self
    }

    /// Lists at most `size` items per page (default: all in one).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// How long clients may cache the 2026-07-28 generation's cacheable
    /// results (default one minute).
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Builds the server, or says which tool or prompt cannot be.
    pub fn build(mut self) -> Result<Server, ServerBuildError> {
        let tools = self.tools.build()?;
        let prompts = self.prompts.build()?;
        let resources: Option<Box<dyn resources::DynResources>> = match self.resources.len() {
            0 => None,
            1 => self.resources.pop(),
            _ => Some(Box::new(resources::Several(self.resources))),
        };
        let completer: Option<Box<dyn resources::DynCompleter>> = match self.completers.len() {
            0 => None,
            1 => self.completers.pop(),
            _ => Some(Box::new(resources::SeveralCompleters(self.completers))),
        };
        let list_changed = || {
            Some(ListChanged {
                list_changed: Some(true),
            })
        };
        let capabilities = ServerCapabilities {
            tools: (!tools.is_empty()).then(list_changed).flatten(),
            prompts: (!prompts.is_empty()).then(list_changed).flatten(),
            resources: resources.as_ref().map(|resources| ResourcesCapability {
                subscribe: Some(resources.subscribable()),
                list_changed: Some(true),
            }),
            logging: Some(Default::default()),
            completions: completer.as_ref().map(|_| Default::default()),
            experimental: None,
            extensions: None,
        };
        Ok(Server {
            inner: Arc::new(Inner {
                info: self.info,
                instructions: self.instructions,
                tools,
                prompts,
                resources,
                completer,
                capabilities,
                notifier: self.notifier,
                state_key: self.state_key.unwrap_or_else(StateKey::random),
                page_size: self.page_size,
                cache_ttl: self.cache_ttl,
            }),
        })
    }
}
