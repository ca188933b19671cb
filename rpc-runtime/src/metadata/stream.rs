//! How a streaming method's items travel, and what a call that cannot stream answers.

/// The names a streaming method's items travel under as a subscription on
/// a two-way transport (WebSocket, TCP, stdio), Ethereum style: each item
/// is a notification named [`notification`](StreamInfo::notification) with
/// params `{"subscription": id, "result": item}`, and a call of
/// [`unsubscribe`](StreamInfo::unsubscribe) with the id ends it.
///
/// ```
/// use typed_rpc::StreamInfo;
///
/// const NEW_HEADS: StreamInfo = StreamInfo::new("eth_subscription", "eth_unsubscribe");
/// assert_eq!(NEW_HEADS.notification(), "eth_subscription");
/// assert_eq!(NEW_HEADS.unsubscribe(), "eth_unsubscribe");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamInfo {
    notification: &'static str,
    unsubscribe: &'static str,
    fallback: StreamFallback,
}

impl StreamInfo {
    /// Items as `notification`s, ended by a call of `unsubscribe`; a call
    /// that cannot stream is refused.
    pub const fn new(notification: &'static str, unsubscribe: &'static str) -> Self {
        StreamInfo {
            notification,
            unsubscribe,
            fallback: StreamFallback::Refuse,
        }
    }

    /// Sets what a call that cannot stream answers (`#[method(stream(fallback
    /// = "last_item"))]`).
    ///
    /// ```
    /// use typed_rpc::{StreamFallback, StreamInfo};
    ///
    /// const SEND: StreamInfo = StreamInfo::new("progress", "progress_unsubscribe")
    ///     .fallback(StreamFallback::LastItem);
    /// assert_eq!(SEND.fallback_answer(), StreamFallback::LastItem);
    /// ```
    pub const fn fallback(mut self, fallback: StreamFallback) -> Self {
        self.fallback = fallback;
        self
    }

    /// What a call that cannot stream answers.
    pub const fn fallback_answer(&self) -> StreamFallback {
        self.fallback
    }

    /// The method name of the notifications that carry the items.
    pub const fn notification(&self) -> &'static str {
        self.notification
    }

    /// The method that ends a subscription.
    pub const fn unsubscribe(&self) -> &'static str {
        self.unsubscribe
    }
}

/// What the call of a streaming method answers where its items cannot
/// stream: over HTTP when the client's `Accept` excludes
/// `text/event-stream` (`Accept: application/json`), as an entry of a
/// batch, and through [`Router::handle`](crate::Router::handle).
///
/// Set per method with `#[method(stream(fallback = "..."))]`. MCP's and
/// A2A's SDKs each answer one of these ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamFallback {
    /// `-32600` with the reason in `data.reason` (`fallback = "refuse"`,
    /// the default): the caller learns that the method streams.
    #[default]
    Refuse,
    /// The handler's stream runs to its end and its last item is the
    /// call's plain result (`fallback = "last_item"`): a task's final
    /// state, say. An error item is the error reply; a stream that ends
    /// without an item answers `-32603` with the reason in `data.reason`.
    /// Only the last item is kept while the stream runs.
    LastItem,
}
