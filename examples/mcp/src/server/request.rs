//! What a tool, prompt or resource handler knows of the MCP request it
//! serves, and what it may do with it: report progress, log, and call the
//! host, the same way in both generations and on every transport.

use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use typed_rpc::client::{OutgoingRequest, Transport};
use typed_rpc::{ClientError, Context, ErrorObject};

use super::input::InputRound;
use super::peer::Peer;
use super::session::{ClientState, Session};
use crate::ProtocolVersion;
use crate::api::McpHostClient;
use crate::error;
use crate::types::{
    ClientCapabilities, Implementation, LogMessageParams, LoggingLevel, ProgressParams,
    ProgressToken,
};

/// Where a request's log level comes from.
enum LogLevel {
    /// The classic session's, which `logging/setLevel` may change mid-request.
    Session(Arc<Session>),
    /// The 2026-07-28 request's own `_meta`; `None`: it wants no log.
    Request(Option<LoggingLevel>),
}

/// What a handler knows of the MCP request it serves; ask for it with
/// [`McpContext::mcp`] on the handler's `#[context]`.
///
/// ```
/// use typed_rpc::{Context, RpcResult, rpc};
/// use typed_rpc_mcp::server::McpContext;
/// use typed_rpc_mcp::types::LoggingLevel;
///
/// #[rpc]
/// pub trait Counter {
///     /// Counts to `n`, reporting progress as it goes.
///     #[method(name = "count")]
///     async fn count(&self, #[context] cx: &Context, n: u32) -> RpcResult<u32>;
/// }
///
/// struct Tools;
///
/// impl Counter for Tools {
///     async fn count(&self, cx: &Context, n: u32) -> RpcResult<u32> {
///         let mcp = cx.mcp();
///         for i in 1..=n {
///             mcp.progress(f64::from(i), Some(f64::from(n)), None).await;
///         }
///         mcp.log(LoggingLevel::Info, "counted").await;
///         Ok(n)
///     }
/// }
/// ```
pub struct RequestContext {
    version: ProtocolVersion,
    client: Arc<ClientState>,
    progress_token: Option<ProgressToken>,
    log_level: LogLevel,
    peer: Peer,
    input: Option<InputRound>,
    last_progress: Mutex<Option<f64>>,
    /// A capability a call to the host needed and the client lacks.
    missing: Mutex<Option<ClientCapabilities>>,
    /// An answer the client brought that is not what its question asks.
    invalid_answer: Mutex<Option<ErrorObject>>,
}

/// The parts a [`RequestContext`] is made of, as the server knows them.
pub(crate) struct Parts {
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientState>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) peer: Peer,
    pub(crate) session: Option<Arc<Session>>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) input: Option<InputRound>,
}

impl RequestContext {
    pub(crate) fn new(parts: Parts) -> Self {
        let log_level = match parts.session {
            Some(session) if !parts.version.is_stateless() => LogLevel::Session(session),
            _ => LogLevel::Request(parts.log_level),
        };
        RequestContext {
            version: parts.version,
            client: parts.client,
            progress_token: parts.progress_token,
            log_level,
            peer: parts.peer,
            input: parts.input,
            last_progress: Mutex::new(None),
            missing: Mutex::new(None),
            invalid_answer: Mutex::new(None),
        }
    }

    /// The context of a call made outside any MCP request (a tool service
    /// called directly): progress and logging go nowhere, the host cannot
    /// be called.
    fn detached() -> Arc<Self> {
        static DETACHED: OnceLock<Arc<RequestContext>> = OnceLock::new();
        DETACHED
            .get_or_init(|| {
                Arc::new(RequestContext::new(Parts {
                    version: ProtocolVersion::LATEST_CLASSIC,
                    client: Arc::default(),
                    progress_token: None,
                    peer: Peer::default(),
                    session: None,
                    log_level: None,
                    input: None,
                }))
            })
            .clone()
    }

    /// The protocol version of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// What the client said it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client.capabilities
    }

    /// Who the client said it is, if it did.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client.info.as_ref()
    }

    /// The progress token the request carried: progress is reported only
    /// when it did.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// Reports progress: `progress` so far, out of `total` when known. Sent
    /// only when the request carried a progress token, and only when
    /// `progress` is past the last report (the specification wants it to
    /// grow). Returns whether it was sent.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = &self.progress_token else {
            return false;
        };
        {
            let mut last = self.last_progress.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|last| progress <= last) {
                return false;
            }
            *last = Some(progress);
        }
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message: message.map(str::to_owned),
            meta: None,
        };
        self.peer
            .notify("notifications/progress", &params)
            .await
            .is_ok()
    }

    /// The least severe level the client wants to hear of now; `None` when
    /// it wants no log (a 2026-07-28 request without a log level).
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match &self.log_level {
            // A classic session hears everything until it sets a level.
            LogLevel::Session(session) => Some(session.log_level().unwrap_or(LoggingLevel::Debug)),
            LogLevel::Request(level) => *level,
        }
    }

    /// Sends a log message (`notifications/message`) when the client wants
    /// to hear of `level`. Returns whether it was sent.
    pub async fn log(&self, level: LoggingLevel, data: impl Serialize) -> bool {
        if self.log_level().is_none_or(|least| level < least) {
            return false;
        }
        let Ok(data) = serde_json::to_value(data) else {
            return false;
        };
        let params = LogMessageParams {
            level,
            logger: None,
            data,
            meta: None,
        };
        self.peer
            .notify("notifications/message", &params)
            .await
            .is_ok()
    }

    /// Sends the client a notification of this request (`method` with
    /// `params`), on the request's own stream where the transport has one.
    pub async fn notify<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        self.peer.notify(method, params).await
    }

    /// A typed client of the host: `create_message` (sampling), `elicit`
    /// and `list_roots`. In the classic generation each call is a request
    /// to the client; in the 2026-07-28 generation the first call that
    /// needs an answer the client has not given ends the request with an
    /// `input_required` result, and the client's retry runs the handler
    /// again from the start with the answer at hand: do side effects after
    /// the host calls, not before. A call the client did not declare the
    /// capability for fails, and the request is answered `-32021`.
    pub fn host(self: &Arc<Self>) -> McpHostClient<HostPeer> {
        McpHostClient::new(HostPeer {
            call: self.clone(),
            key: None,
        })
    }

    /// [`host`](Self::host), whose next call's input request (in the
    /// 2026-07-28 generation) is keyed `key` rather than by its place in
    /// the handler: a name the client sees in `inputRequests`. Keys must
    /// be unique within one request.
    pub fn host_keyed(self: &Arc<Self>, key: impl Into<String>) -> McpHostClient<HostPeer> {
        McpHostClient::new(HostPeer {
            call: self.clone(),
            key: Some(key.into()),
        })
    }

    /// The capability a host call of `method` (with `params`) needs, if
    /// the client lacks it.
    fn lacking(&self, method: &str, params: Option<&str>) -> Option<ClientCapabilities> {
        let caps = &self.client.capabilities;
        let mut needed = ClientCapabilities::default();
        match method {
            "sampling/createMessage" if caps.sampling.is_none() => {
                needed.sampling = Some(Default::default());
            }
            "roots/list" if caps.roots.is_none() => needed.roots = Some(Default::default()),
            "elicitation/create" => {
                let url = params.is_some_and(|p| p.contains(r#""mode":"url""#));
                let declared = match &caps.elicitation {
                    None => false,
                    // An empty object declares forms only.
                    Some(modes) if url => modes.contains_key("url"),
                    Some(modes) => modes.is_empty() || modes.contains_key("form"),
                };
                if declared {
                    return None;
                }
                let mode = if url { "url" } else { "form" };
                let mut modes = serde_json::Map::new();
                modes.insert(mode.into(), serde_json::json!({}));
                needed.elicitation = Some(modes);
            }
            _ => return None,
        }
        Some(needed)
    }

    /// Why the request failed on the host's side, if it did: a capability
    /// a host call needed and the client lacks (`-32021`), or an answer
    /// the client brought that is not an answer to its question (`-32602`).
    pub(crate) fn host_failure(&self) -> Option<ErrorObject> {
        if let Some(needed) = self
            .missing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            return Some(error::missing_capability(needed));
        }
        self.invalid_answer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub(crate) fn input(&self) -> Option<&InputRound> {
        self.input.as_ref()
    }
}

/// The extension through which a handler's [`Context`] reaches its MCP
/// request.
pub trait McpContext {
    /// The MCP request being served; outside any (a tool service called
    /// directly), a context that reports nothing and reaches no host.
    fn mcp(&self) -> Arc<RequestContext>;
}

impl McpContext for Context {
    fn mcp(&self) -> Arc<RequestContext> {
        self.extensions()
            .get::<Arc<RequestContext>>()
            .cloned()
            .unwrap_or_else(RequestContext::detached)
    }
}

/// The transport of [`RequestContext::host`]: requests to the client on
/// the request's own way to it, or (2026-07-28) answers from the retry.
#[derive(Clone)]
pub struct HostPeer {
    call: Arc<RequestContext>,
    /// The key of the input request, in the 2026-07-28 generation.
    key: Option<String>,
}

impl Transport for HostPeer {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        let call = &self.call;
        if let Some(needed) = call.lacking(request.method(), request.params().map(|p| p.as_json()))
        {
            let error = error::missing_capability(&needed);
            *call.missing.lock().unwrap_or_else(|p| p.into_inner()) = Some(needed);
            return Err(ClientError::Rpc(error));
        }
        let Some(round) = &call.input else {
            return call.peer.request(request.method(), request.params()).await;
        };
        let answer = round
            .answer(request.method(), request.params(), self.key.as_deref())
            .await;
        if let Err(ClientError::Rpc(invalid)) = &answer {
            *call
                .invalid_answer
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(invalid.clone());
        }
        answer
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        let empty;
        let params = match notification.params() {
            Some(params) => params,
            None => {
                empty = typed_rpc::client::Params::from_value(&serde_json::json!({}))?;
                &empty
            }
        };
        self.call
            .peer
            .notify_params(notification.method(), params)
            .await
    }
}
