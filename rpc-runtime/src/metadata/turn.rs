//! When a message runs on a two-way connection: [`Turn`] and [`Access`].

/// When a peer's message runs on a two-way connection (WebSocket, TCP,
/// stdio), among the messages that arrive before and after it.
///
/// A connection keeps the peer's messages in their arrival order as far as
/// their methods ask:
///
/// - an [`exclusive`](Turn::exclusive) message runs alone: once everything
///   that arrived before it has finished, and before anything that arrives
///   after it starts (state changes: LSP's `didChange`, `initialize`);
/// - [`shared`](Turn::shared) messages run concurrently with one another,
///   between the exclusive ones around them (reads: `hover`);
/// - a method that declares neither keeps the connection's defaults: a
///   request runs after the exclusive messages and notifications before
///   it, and nothing waits for it (a long command does not hold up the
///   edits that follow); a notification runs after the exclusive messages
///   and notifications before it, and what arrives after it waits for it,
///   but it does not wait for the requests still running before it.
///
/// With a [`key`](Turn::key), a JSON Pointer into the params naming what
/// the message is about (LSP's `/textDocument/uri`), an exclusive message
/// that [`supersedes`](Turn::supersede) cancels the shared requests for the
/// same key that are still in flight (waiting for their turn or running):
/// their handlers are dropped, and they are answered with the cancel
/// policy's [`superseded`](crate::CancelPolicy::superseded) error
/// (`-32801` ContentModified unless set otherwise).
///
/// Replies to this end's own calls never wait for a turn: a handler that
/// calls the peer and awaits its answer never deadlocks the connection.
///
/// ```
/// use typed_rpc::{MethodInfo, Turn};
///
/// const DID_CHANGE: MethodInfo = MethodInfo::notification("textDocument/didChange")
///     .turn(Turn::exclusive().key("/textDocument/uri").supersede());
/// const HOVER: MethodInfo = MethodInfo::method("textDocument/hover")
///     .turn(Turn::shared().key("/textDocument/uri"));
/// assert!(DID_CHANGE.turn_info().is_exclusive() && DID_CHANGE.turn_info().supersedes());
/// assert_eq!(HOVER.turn_info().key_pointer(), Some("/textDocument/uri"));
/// assert!(MethodInfo::method("ping").turn_info().is_default());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    access: Option<Access>,
    key: Option<&'static str>,
    supersede: bool,
}

/// Whether a message runs alone or beside others: see [`Turn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Alone, in arrival order.
    Exclusive,
    /// Concurrently with other shared messages, between exclusive ones.
    Shared,
}

impl Turn {
    /// The connection's defaults: nothing declared.
    pub const DEFAULT: Turn = Turn {
        access: None,
        key: None,
        supersede: false,
    };

    /// Runs alone, in arrival order.
    pub const fn exclusive() -> Self {
        Turn {
            access: Some(Access::Exclusive),
            ..Turn::DEFAULT
        }
    }

    /// Runs concurrently with other shared messages, between exclusive ones.
    pub const fn shared() -> Self {
        Turn {
            access: Some(Access::Shared),
            ..Turn::DEFAULT
        }
    }

    /// Names what the message is about: the value at the JSON Pointer
    /// `pointer` (RFC 6901) in its params, compared as JSON text.
    pub const fn key(mut self, pointer: &'static str) -> Self {
        self.key = Some(pointer);
        self
    }

    /// Makes an exclusive message cancel the shared requests with the same
    /// key still in flight when it arrives.
    pub const fn supersede(mut self) -> Self {
        self.supersede = true;
        self
    }

    /// Exclusive, shared, or `None` for the connection's default.
    pub const fn access(&self) -> Option<Access> {
        self.access
    }

    /// Whether the message runs alone.
    pub const fn is_exclusive(&self) -> bool {
        matches!(self.access, Some(Access::Exclusive))
    }

    /// Whether nothing is declared.
    pub const fn is_default(&self) -> bool {
        self.access.is_none() && self.key.is_none() && !self.supersede
    }

    /// The JSON Pointer of the key in the params, if one is declared.
    pub const fn key_pointer(&self) -> Option<&'static str> {
        self.key
    }

    /// Whether an exclusive message cancels the shared ones with its key.
    pub const fn supersedes(&self) -> bool {
        self.supersede
    }
}
