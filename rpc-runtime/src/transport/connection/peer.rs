//! A two-way connection as the handlers' port to their peer, and
//! [`Context::connection`], the handle the port hands back.

use std::any::Any;
use std::sync::Arc;

use super::Connection;
use crate::context::peer::{Peer, PeerFuture, PeerGone};
use crate::streaming::Items;
use crate::wire::Id;
use crate::{Context, StreamInfo};

impl Peer for Connection {
    fn takes_notifications(&self) -> bool {
        true
    }

    fn notify(&self, text: String) -> PeerFuture<'_, Result<(), PeerGone>> {
        Box::pin(async move { self.enqueue(text).await.map_err(|_| PeerGone) })
    }

    fn stream<'a>(
        &'a self,
        id: Id<'a>,
        info: &'static StreamInfo,
        items: Items,
    ) -> PeerFuture<'a, Option<String>> {
        Box::pin(self.subscribe(id, info, items))
    }

    fn unsubscribe<'a>(&'a self, subscription: &'a str) -> PeerFuture<'a, bool> {
        Box::pin(Connection::unsubscribe(self, subscription))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Context {
    /// The connection the request came on, on two-way transports (WebSocket,
    /// TCP, stdio): a handle to send notifications and requests back to the
    /// peer, for example through a generated client. What a handler sends
    /// before it returns reaches the peer before its reply: progress
    /// notifications arrive before the result.
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    ///
    /// assert!(Context::new(TransportKind::Tcp).connection().is_none());
    /// ```
    pub fn connection(&self) -> Option<&Connection> {
        self.peer()?.as_any().downcast_ref()
    }

    /// The context of the calls that arrive on `connection`.
    pub(crate) fn with_connection(self, connection: Connection) -> Self {
        self.with_peer(Arc::new(connection))
    }
}
