//! Cancelling requests in flight: the notification a peer sends to give up
//! on a request, and what a handler sees of it.
//!
//! A [`CancelPolicy`] set on the router with
//! [`RouterBuilder::cancel_notification`](crate::RouterBuilder::cancel_notification)
//! names the notification and says how a cancelled request is answered. On
//! two-way connections (WebSocket, TCP, stdio) the server then drops the
//! handler of a request that its peer cancels, and a
//! [`Connection`](crate::transport::Connection) made
//! [`with_cancel_notification`](crate::transport::Connection::with_cancel_notification)
//! sends the notification for each call it gives up on.

use std::borrow::Cow;
use std::time::Duration;

use crate::ErrorObject;

cfg_duplex! {
    mod notice;
    pub(crate) use notice::RequestKey;
}

/// The notification that cancels a request, and what the cancelled request
/// is answered with.
///
/// ```
/// use typed_rpc::CancelPolicy;
///
/// let lsp = CancelPolicy::lsp();
/// assert_eq!((lsp.method(), lsp.id_member()), ("$/cancelRequest", "id"));
/// assert_eq!(lsp.answer().unwrap().code(), -32800);
///
/// let mcp = CancelPolicy::mcp();
/// assert_eq!((mcp.method(), mcp.id_member()), ("notifications/cancelled", "requestId"));
/// assert!(mcp.answer().is_none(), "MCP answers nothing after a cancel");
///
/// let custom = CancelPolicy::new("app/abort", "call").answer_with(typed_rpc::ErrorObject::new(-32001, "Aborted"));
/// assert_eq!(custom.answer().unwrap().message(), "Aborted");
/// ```
#[derive(Clone, Debug)]
pub struct CancelPolicy {
    method: Cow<'static, str>,
    id_member: Cow<'static, str>,
    answer: Option<ErrorObject>,
    superseded: ErrorObject,
    grace: Duration,
}

impl CancelPolicy {
    /// LSP's `RequestCancelled` error code.
    pub const LSP_REQUEST_CANCELLED: i64 = -32800;

    /// LSP's `ContentModified` error code: what a request superseded by a
    /// change to its document is answered with (see [`Turn`](crate::Turn)).
    pub const LSP_CONTENT_MODIFIED: i64 = -32801;

    /// How long a handler that watches [`Context::cancelled`](crate::Context::cancelled)
    /// may go on after its request is cancelled, unless set otherwise.
    pub const DEFAULT_GRACE: Duration = Duration::from_secs(1);

    /// LSP: `$/cancelRequest` with `{"id": ...}`; the cancelled request is
    /// answered `-32800` `"Request cancelled"`, as LSP clients wait for an
    /// answer to every request.
    pub fn lsp() -> Self {
        CancelPolicy::new("$/cancelRequest", "id").answer_with(ErrorObject::new(
            Self::LSP_REQUEST_CANCELLED,
            "Request cancelled",
        ))
    }

    /// MCP: `notifications/cancelled` with `{"requestId": ..., "reason": ...}`;
    /// nothing is answered after it, as MCP says.
    pub fn mcp() -> Self {
        CancelPolicy::new("notifications/cancelled", "requestId")
    }

    /// The notification `method`, whose params object names the cancelled
    /// request's id in its member `id_member`. A request cancelled this way
    /// is not answered, unless [`answer_with`](Self::answer_with) says otherwise.
    pub fn new(
        method: impl Into<Cow<'static, str>>,
        id_member: impl Into<Cow<'static, str>>,
    ) -> Self {
        CancelPolicy {
            method: method.into(),
            id_member: id_member.into(),
            answer: None,
            superseded: Self::content_modified(),
            grace: Self::DEFAULT_GRACE,
        }
    }

    /// `-32801` `"Content modified"`, LSP's answer to a request whose
    /// document changed while it ran.
    pub(crate) fn content_modified() -> ErrorObject {
        ErrorObject::new(Self::LSP_CONTENT_MODIFIED, "Content modified")
    }

    /// Answers each request superseded by an exclusive message with the same
    /// key (see [`Turn::supersede`](crate::Turn::supersede)) with `error`
    /// (default: `-32801` `"Content modified"`, as LSP has it).
    pub fn supersede_with(mut self, error: ErrorObject) -> Self {
        self.superseded = error;
        self
    }

    /// What a superseded request is answered with.
    pub fn superseded(&self) -> &ErrorObject {
        &self.superseded
    }

    /// Answers each cancelled request with `error`.
    pub fn answer_with(mut self, error: ErrorObject) -> Self {
        self.answer = Some(error);
        self
    }

    /// Gives a handler that watches [`Context::cancelled`](crate::Context::cancelled)
    /// `grace` to finish its cleanup once its request is cancelled (default
    /// [`DEFAULT_GRACE`](Self::DEFAULT_GRACE)); then it is dropped. A
    /// handler that never watched is dropped at once.
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The cancel notification's method name.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The member of its params that holds the cancelled request's id.
    pub fn id_member(&self) -> &str {
        &self.id_member
    }

    /// What a cancelled request is answered with; `None`: nothing.
    pub fn answer(&self) -> Option<&ErrorObject> {
        self.answer.as_ref()
    }

    /// How long a handler that watches its cancellation may go on after it.
    pub fn grace(&self) -> Duration {
        self.grace
    }
}

cfg_rt! {
    mod watch;
    pub(crate) use watch::{WATCH, Watch};
}
