//! What the router does for the peer of a two-way connection: a message
//! parsed once, answered, or handed back unrun when it is a lone
//! notification or a response.

use std::sync::Arc;

use super::Router;
use crate::wire::{self, Entry, Message};
use crate::{CancelPolicy, Context};

impl Router {
    /// The cancel policy, shared with the connections that cancel their
    /// own calls the same way.
    pub(crate) fn shared_cancel_policy(&self) -> Option<&Arc<CancelPolicy>> {
        self.inner.cancel.as_ref()
    }

    /// Handles one message from the peer of a two-way connection, except a
    /// lone notification (unless `run_notification`) or response: those it
    /// reports unrun, for the connection to run notifications in their turn
    /// and to hand responses to the calls waiting for them. The one parse
    /// tells them apart, where a scan before the parse would cost a request
    /// a tenth more.
    pub(crate) async fn handle_from_peer(
        &self,
        message: &[u8],
        context: &Context,
        run_notification: bool,
    ) -> FromPeer {
        match wire::parse(message, self.inner.settings.max_batch_len) {
            Ok(Message::Single(Entry::Request(request)))
                if request.id().is_none() && !run_notification =>
            {
                FromPeer::Notification
            }
            Ok(Message::Single(Entry::Invalid { response: true, .. })) => FromPeer::Response,
            Ok(Message::Single(entry)) => FromPeer::Reply(self.handle_entry(&entry, context).await),
            Ok(Message::Batch(entries)) => {
                FromPeer::Reply(self.handle_batch(&entries, context).await)
            }
            Err(error) => FromPeer::Reply(Some(wire::failure(None, &error))),
        }
    }
}

/// What [`Router::handle_from_peer`] did with a message.
pub(crate) enum FromPeer {
    /// Handled: the reply, if any.
    Reply(Option<String>),
    /// A lone notification, not run.
    Notification,
    /// A lone response.
    Response,
}
