//! The session's lifecycle as LSP defines it, enforced in front of every handler.

use std::sync::atomic::{AtomicU8, Ordering};

use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{ErrorObject, code};

/// LSP's `ServerNotInitialized`: a request before `initialize`.
pub const SERVER_NOT_INITIALIZED: i64 = -32002;

/// Where a session is: before `initialize`, running, or after `shutdown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No `initialize` answered yet.
    Uninitialized,
    /// Serving.
    Running,
    /// `shutdown` answered: only `exit` is left to come.
    ShutDown,
}

/// A [`CallLayer`] that holds a session to LSP's lifecycle, so that no
/// handler has to check where the session is:
///
/// - before `initialize` has been answered, requests get `-32002`
///   ServerNotInitialized and notifications other than `exit` are dropped;
/// - a second `initialize` gets `-32600`;
/// - once `shutdown` has been answered, requests get `-32600` and
///   notifications other than `exit` are dropped.
///
/// Add it with [`RouterBuilder::layer`](typed_rpc::RouterBuilder::layer) as
/// an `Arc<Lifecycle>` and keep a clone to read the [`phase`](Self::phase)
/// (for `exit`'s code). It is one session's: one router per connection,
/// as a language server on stdio has.
///
/// ```
/// use std::sync::Arc;
/// use typed_rpc::{Router, RpcResult, rpc};
/// use typed_rpc_lsp::{Lifecycle, Phase};
///
/// #[rpc]
/// pub trait Minimal {
///     #[method(name = "initialize")]
///     async fn initialize(&self) -> RpcResult<serde_json::Value>;
///     #[method(name = "textDocument/hover")]
///     async fn hover(&self) -> RpcResult<()>;
/// }
/// struct Server;
/// impl Minimal for Server {
///     async fn initialize(&self) -> RpcResult<serde_json::Value> { Ok(serde_json::json!({"capabilities": {}})) }
///     async fn hover(&self) -> RpcResult<()> { Ok(()) }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let lifecycle = Arc::new(Lifecycle::new());
/// let router = Router::builder().service(Server.into_service()).layer(lifecycle.clone()).build().unwrap();
/// let hover = br#"{"jsonrpc":"2.0","method":"textDocument/hover","id":1}"#;
/// assert!(router.handle(hover).await.unwrap().contains("-32002"));
/// router.handle(br#"{"jsonrpc":"2.0","method":"initialize","id":2}"#).await;
/// assert_eq!(lifecycle.phase(), Phase::Running);
/// assert_eq!(router.handle(hover).await.unwrap(), r#"{"jsonrpc":"2.0","result":null,"id":1}"#);
/// # });
/// ```
#[derive(Debug)]
pub struct Lifecycle {
    phase: AtomicU8,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle::new()
    }
}

impl Lifecycle {
    /// A session that has not been initialized.
    pub const fn new() -> Self {
        Lifecycle {
            phase: AtomicU8::new(Phase::Uninitialized as u8),
        }
    }

    /// Where the session is.
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Uninitialized,
            1 => Phase::Running,
            _ => Phase::ShutDown,
        }
    }

    /// The code `exit` ends the process with: 0 after `shutdown`, 1 without.
    pub fn exit_code(&self) -> i32 {
        match self.phase() {
            Phase::ShutDown => 0,
            _ => 1,
        }
    }

    fn enter(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Release);
    }
}

impl CallLayer for Lifecycle {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let method = request.method();
        match (self.phase(), method) {
            (_, "exit") => next.run(request).await,
            (Phase::Uninitialized, "initialize") => {
                let reply = next.run(request).await;
                if !reply.is_error() {
                    self.enter(Phase::Running);
                }
                reply
            }
            // Dropped: nothing is answered to a notification.
            (Phase::Uninitialized, _) => request.reject(&ErrorObject::new(
                SERVER_NOT_INITIALIZED,
                "Server not initialized",
            )),
            (Phase::Running, "initialize") => request.reject(&ErrorObject::new(
                code::INVALID_REQUEST,
                "The server is already initialized",
            )),
            (Phase::Running, "shutdown") => {
                let reply = next.run(request).await;
                if !reply.is_error() {
                    self.enter(Phase::ShutDown);
                }
                reply
            }
            (Phase::Running, _) => next.run(request).await,
            (Phase::ShutDown, _) => request.reject(&ErrorObject::new(
                code::INVALID_REQUEST,
                "The server is shutting down",
            )),
        }
    }
}
