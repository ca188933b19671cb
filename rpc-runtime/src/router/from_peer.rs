//! What the router does for the peer of a two-way connection: a message
//! parsed once, answered, or handed back unrun when it is a lone
//! notification or a response.

use std::sync::Arc;

use super::Router;
use crate::wire::{self, Entry, Message, Notification};
use crate::{CancelPolicy, Context};

impl Router {
    /// The cancel policy, shared with the connections that cancel their
    /// own calls the same way.
    pub(crate) fn shared_cancel_policy(&self) -> Option<&Arc<CancelPolicy>> {
        self.inner.cancel.as_ref()
    }

    /// Handles one message from the peer of a two-way connection, except a
    /// lone notification or a response: those it reports unrun, the
    /// notification as it has read it, for the connection to run it in its
    /// turn (with [`handle_notification`](Self::handle_notification), not
    /// read again) and to hand responses to the calls waiting for them. The
    /// one parse tells them apart, where a scan before the parse would cost
    /// a request a tenth more.
    pub(crate) async fn handle_from_peer(&self, message: &[u8], context: &Context) -> FromPeer {
        match wire::parse(message, self.inner.settings.max_batch_len) {
            Ok(Message::Single(Entry::Request(request))) if request.id().is_none() => {
                FromPeer::Notification(Notification::of(&request))
            }
            Ok(Message::Single(Entry::Invalid { response: true, .. })) => FromPeer::Response,
            Ok(Message::Single(entry)) => FromPeer::Reply(self.handle_entry(&entry, context).await),
            Ok(Message::Batch(entries)) => {
                FromPeer::Reply(self.handle_batch(&entries, context).await)
            }
            Err(error) => FromPeer::Reply(Some(wire::failure(None, &error))),
        }
    }

    /// Runs a notification of the peer's, as [`handle_from_peer`](Self::handle_from_peer)
    /// or the connection's reader has read it. What a notification's
    /// handler answers (nothing, unless it is refused) is the reply.
    pub(crate) async fn handle_notification(
        &self,
        notification: &Notification,
        context: &Context,
    ) -> Option<String> {
        let entry = Entry::Request(notification.as_request());
        self.handle_entry(&entry, context).await
    }
}

/// What [`Router::handle_from_peer`] did with a message.
pub(crate) enum FromPeer {
    /// Handled: the reply, if any.
    Reply(Option<String>),
    /// A lone notification, read and not run.
    Notification(Notification),
    /// A lone response.
    Response,
}
