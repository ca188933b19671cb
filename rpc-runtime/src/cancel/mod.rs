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

#[cfg(feature = "duplex")]
use serde::Deserialize;
#[cfg(feature = "duplex")]
use serde_json::value::RawValue;

use crate::ErrorObject;
#[cfg(feature = "duplex")]
use crate::wire::Id;

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

    /// The text of the notification that cancels our call `id`.
    #[cfg(feature = "duplex")]
    pub(crate) fn notification(&self, id: u64) -> String {
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": self.method(),
            "params": { self.id_member(): id },
        })
        .to_string()
    }

    /// The answer to the cancelled request `id`, if this policy gives one.
    #[cfg(feature = "duplex")]
    pub(crate) fn answer_to(&self, id: &RawValue) -> Option<String> {
        let error = self.answer.as_ref()?;
        Some(crate::wire::failure(Some(Id::new(id)?), error))
    }

    #[cfg(feature = "duplex")]
    /// If `message` is this policy's notification, the id of the request it
    /// cancels (`None` inside when it names none, or not one a request may have).
    pub(crate) fn cancelled_by(&self, message: &[u8]) -> Option<Option<RequestKey>> {
        // Most notifications are not cancels, and some are large (a whole
        // document in LSP's `didChange`): a search for the method name's
        // last segment skips the parse for nearly all. A name spelled with
        // escapes is missed, and the notification then goes to the router
        // like any other.
        let tail = self.method.rsplit('/').next().unwrap_or_default();
        if !tail.is_empty() && !contains(message, tail.as_bytes()) {
            return None;
        }
        let notice: Notice<'_> = serde_json::from_slice(message).ok()?;
        if notice.method != self.method || notice.id.is_some() {
            return None;
        }
        let params = notice.params.and_then(|params| {
            serde_json::from_str::<std::collections::HashMap<Cow<'_, str>, &RawValue>>(params.get())
                .ok()
        });
        let key = params
            .as_ref()
            .and_then(|params| params.get(self.id_member()))
            .and_then(|raw| RequestKey::of(raw));
        Some(key)
    }
}

#[cfg(feature = "duplex")]
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// A notification as far as a cancel needs it.
#[cfg(feature = "duplex")]
#[derive(Deserialize)]
struct Notice<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// A request's id, owned, as a cancel names it: strings compare by their
/// text with escapes resolved, numbers by their JSON text.
#[cfg(feature = "duplex")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RequestKey {
    Number(Box<str>),
    Text(Box<str>),
}

#[cfg(feature = "duplex")]
impl RequestKey {
    /// The key of the id `raw`; `None` for `null` or what is no id.
    pub(crate) fn of(raw: &RawValue) -> Option<Self> {
        let id = Id::new(raw)?;
        if id.is_null() {
            return None;
        }
        Some(match id.as_str() {
            Some(text) => RequestKey::Text(text.into()),
            None => RequestKey::Number(id.as_json().into()),
        })
    }
}

#[cfg(feature = "rt")]
pub(crate) use watch::{WATCH, Watch};

#[cfg(feature = "rt")]
mod watch {
    use std::future::{Future, poll_fn};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::Poll;

    use tokio_util::sync::CancellationToken;

    use crate::Context;

    tokio::task_local! {
        /// The cancellation of the request the current task serves; set
        /// around a request that runs as a task of its connection.
        pub(crate) static WATCH: Arc<Watch>;
    }

    /// One request's cancellation, shared by what fires it (its connection,
    /// on the peer's cancel; its deadline) and its handler (which may
    /// watch it).
    #[derive(Default)]
    pub(crate) struct Watch {
        token: CancellationToken,
        /// Set once the handler has asked for [`Context::cancelled`]: it
        /// then gets a grace period to clean up.
        watching: AtomicBool,
        /// Set when the request was cancelled because an exclusive message
        /// superseded it, not by its peer.
        #[cfg(feature = "duplex")]
        superseded: AtomicBool,
    }

    impl Watch {
        pub(crate) fn cancel(&self) {
            self.token.cancel();
        }

        /// Cancels the request because a change superseded it.
        #[cfg(feature = "duplex")]
        pub(crate) fn supersede(&self) {
            self.superseded.store(true, Ordering::Release);
            self.token.cancel();
        }

        #[cfg(feature = "duplex")]
        pub(crate) fn is_superseded(&self) -> bool {
            self.superseded.load(Ordering::Acquire)
        }

        #[cfg(feature = "duplex")]
        pub(crate) async fn cancelled(&self) {
            self.token.cancelled().await;
        }

        pub(crate) fn is_watched(&self) -> bool {
            self.watching.load(Ordering::Acquire)
        }

        /// Ties this watch (a request's deadline) to `outer` (the peer's
        /// cancel of the same request): fired once that one is, and watched
        /// there once watched here. Called around each poll of the handler,
        /// as a request moves into `outer`'s scope only after its first polls.
        pub(crate) fn follow(&self, outer: &Watch) {
            if outer.token.is_cancelled() {
                self.cancel();
            }
            if self.is_watched() {
                outer.watching.store(true, Ordering::Release);
            }
        }
    }

    impl Context {
        /// Resolves when the request being served is given up on: cancelled
        /// by its client, with the router's
        /// [`cancel_notification`](crate::RouterBuilder::cancel_notification),
        /// or past the router's
        /// [`request_timeout`](crate::RouterBuilder::request_timeout).
        /// A handler that awaits it has a grace period to clean up before
        /// it is dropped (the cancel policy's
        /// [`grace_period`](crate::CancelPolicy::grace_period), or
        /// [`DEFAULT_GRACE`](crate::CancelPolicy::DEFAULT_GRACE) without a
        /// policy); its result is discarded either way, and the request
        /// answered as the policy says, or `-32603` `"Request timed out"`.
        ///
        /// A peer can cancel only a request that waits, on a two-way
        /// connection (WebSocket, TCP, stdio); the timeout reaches every
        /// request that waits, on any transport, batch entries included.
        /// A request that neither can reach never sees this resolve: it is
        /// dropped when its client goes away. It is the handler's own
        /// future that learns of its cancellation: a task the handler
        /// spawns does not, and should be handed the news.
        ///
        /// ```
        /// use typed_rpc::{Context, RpcResult, TransportKind};
        ///
        /// async fn long_job(cx: &Context) -> RpcResult<u64> {
        ///     tokio::select! {
        ///         () = cx.cancelled() => {
        ///             // Cleanup goes here, within the grace period.
        ///             Err(typed_rpc::ErrorObject::new(-32800, "Request cancelled"))
        ///         }
        ///         () = tokio::time::sleep(std::time::Duration::from_millis(10)) => Ok(42),
        ///     }
        /// }
        ///
        /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
        /// // Served in-process, nothing can cancel it: the job finishes.
        /// assert_eq!(long_job(&Context::new(TransportKind::InProcess)).await.unwrap(), 42);
        /// # });
        /// ```
        pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static + use<> {
            async {
                let mut woken = false;
                let watch = poll_fn(|cx| match WATCH.try_with(Arc::clone) {
                    Ok(watch) => Poll::Ready(watch),
                    Err(_) => {
                        // A request is polled once in place before it
                        // becomes a task, where its cancellation is set:
                        // one wake-up makes sure it is looked for again
                        // even under a combinator that polls only what
                        // was woken.
                        if !std::mem::replace(&mut woken, true) {
                            cx.waker().wake_by_ref();
                        }
                        Poll::Pending
                    }
                })
                .await;
                watch.watching.store(true, Ordering::Release);
                watch.token.cancelled().await;
            }
        }
    }
}

#[cfg(all(test, feature = "duplex"))]
mod tests {
    use super::*;

    fn cancelled(policy: &CancelPolicy, message: &str) -> Option<Option<RequestKey>> {
        policy.cancelled_by(message.as_bytes())
    }

    fn text(id: &str) -> Option<Option<RequestKey>> {
        Some(Some(RequestKey::Text(id.into())))
    }

    #[test]
    fn finds_the_id_a_cancel_names() {
        let lsp = CancelPolicy::lsp();
        let number = Some(Some(RequestKey::Number("7".into())));
        assert_eq!(
            cancelled(
                &lsp,
                r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#
            ),
            number
        );
        // Escapes in the method name and in a string id are resolved.
        assert_eq!(
            cancelled(
                &lsp,
                r#"{"method":"$\/cancelRequest","params":{"id":"a\u0062"},"jsonrpc":"2.0"}"#
            ),
            text("ab")
        );
        let mcp = CancelPolicy::mcp();
        assert_eq!(
            cancelled(
                &mcp,
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ab","reason":"r"}}"#
            ),
            text("ab")
        );
    }

    #[test]
    fn a_cancel_without_a_usable_id_is_still_a_cancel() {
        let lsp = CancelPolicy::lsp();
        for message in [
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest"}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":[7]}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":null}}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[7]}}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"requestId":7}}"#,
        ] {
            assert_eq!(cancelled(&lsp, message), Some(None), "{message}");
        }
    }

    #[test]
    fn other_messages_are_not_cancels() {
        let lsp = CancelPolicy::lsp();
        for message in [
            r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"id":7}}"#,
            // Its name inside another member is not its method.
            r#"{"jsonrpc":"2.0","method":"log","params":{"text":"$/cancelRequest"}}"#,
            // With an id it is a request, which the router answers.
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7},"id":1}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}"#,
            "[]",
        ] {
            assert_eq!(cancelled(&lsp, message), None, "{message}");
        }
    }

    #[test]
    fn our_notification_names_the_call() {
        assert_eq!(
            CancelPolicy::mcp().notification(3),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#
        );
    }
}
