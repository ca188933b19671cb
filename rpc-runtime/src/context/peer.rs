//! The port through which a handler's context reaches its peer, whatever
//! the transport: the core defines it, the transports implement it.
//!
//! A two-way connection (WebSocket, TCP, stdio) and an HTTP response that
//! may turn into Server-Sent Events each put one [`Peer`] in the contexts of
//! the calls they serve. The core asks it to send a notification or to
//! carry a streaming call's items, and never learns which transport it is.

// Without a transport, nothing implements the port or hands one over.
#![cfg_attr(
    not(any(feature = "http", feature = "duplex")),
    allow(dead_code, reason = "no transport to implement the port")
)]

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::streaming::Items;
use crate::wire::Id;
use crate::{Context, StreamInfo};

/// A future a [`Peer`] answers with, boxed so that the port is a trait
/// object (the calls through it are few: a notification, a stream's start).
pub(crate) type PeerFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The peer has gone: what was sent to it will not arrive.
#[derive(Debug)]
pub(crate) struct PeerGone;

/// The other end of the call's transport, as a handler's context sees it.
pub(crate) trait Peer: fmt::Debug + Send + Sync + 'static {
    /// Whether handlers may send this peer notifications before their reply.
    fn takes_notifications(&self) -> bool;

    /// Sends the peer the JSON-RPC message `text` (a notification); waits
    /// while the peer is slow to read.
    fn notify(&self, text: String) -> PeerFuture<'_, Result<(), PeerGone>>;

    /// Carries `items`, the stream of the call `id` of a method streaming
    /// as `info`, as this transport does (events, a subscription); the reply
    /// the call still owes, if any.
    fn stream<'a>(
        &'a self,
        id: Id<'a>,
        info: &'static StreamInfo,
        items: Items,
    ) -> PeerFuture<'a, Option<String>>;

    /// Ends the subscription `subscription` this peer holds; `true` if it
    /// was live. A peer without subscriptions has none to end.
    fn unsubscribe<'a>(&'a self, subscription: &'a str) -> PeerFuture<'a, bool> {
        let _ = subscription;
        Box::pin(std::future::ready(false))
    }

    /// The transport's own handle, for the accessors that transport adds
    /// to [`Context`] (such as its connection).
    #[cfg_attr(
        not(feature = "duplex"),
        allow(dead_code, reason = "only the connection is handed back")
    )]
    fn as_any(&self) -> &dyn Any;
}

impl Context {
    /// Sets the port to the call's peer; the transport that made it adds
    /// the accessors of its own (such as `Context::connection`).
    pub(crate) fn with_peer(mut self, peer: Arc<dyn Peer>) -> Self {
        self.peer = Some(peer);
        self
    }
}
