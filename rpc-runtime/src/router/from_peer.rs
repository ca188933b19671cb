//! What the router does for the peer of a two-way connection: a message
//! parsed once, answered, or handed back unrun when it is a lone
//! notification or a response.

use std::sync::Arc;

use bytes::Bytes;

use super::Router;
use crate::wire::{self, Entry, Message, Notification};
use crate::{CancelPolicy, Context};

impl Router {
    /// The cancel policy, shared with the connections that cancel their
    /// own calls the same way.
    pub(crate) fn shared_cancel_policy(&self) -> Option<&Arc<CancelPolicy>> {
        self.inner.cancel.as_ref()
    }

    /// Handles one message from the peer of a two-way connection. Given
    /// its text, it reports a lone notification or a response unrun: the
    /// notification as its parse read it, for the connection to run in its
    /// turn (handed back here as read, not parsed again), and a response for
    /// the connection to hand to the call waiting for it. The one parse
    /// tells them apart, where a scan before the parse would cost a request
    /// a tenth more.
    pub(crate) async fn handle_from_peer(
        &self,
        message: &PeerMessage,
        context: &Context,
    ) -> FromPeer {
        // One parse and one call of the handler for both, as the request's
        // path had before notifications came read: that path stays as lean.
        let (parsed, read) = match message {
            PeerMessage::Text(text) => (wire::parse(text, self.inner.settings.max_batch_len), false),
            PeerMessage::Notification(notification) => (
                Ok(Message::Single(Entry::Request(notification.as_request()))),
                true,
            ),
        };
        match parsed {
            Ok(Message::Single(Entry::Request(request))) if request.id().is_none() && !read => {
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
}

/// A message from the peer of a two-way connection, as the connection
/// hands it to the router.
pub(crate) enum PeerMessage {
    /// Its text: a request, a batch, or anything the router parses (and
    /// answers, if it is invalid).
    Text(Bytes),
    /// A lone notification, already read.
    Notification(Notification),
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
