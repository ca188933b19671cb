//! What the router knows of its streaming methods, for the HTTP server:
//! a lone call of one is answered with events, not run as a plain call.

use super::Router;
use crate::context::Context;
use crate::wire::{self, Entry, Message};

impl Router {
    /// Whether one of its methods streams (`#[method(stream)]`).
    pub(crate) fn streams(&self) -> bool {
        !self.inner.streaming.is_empty()
    }

    /// [`handle_with`](Router::handle_with), except for a lone call of a
    /// streaming method, which it leaves unrun (`None`), before any layer
    /// sees it: the HTTP server answers that one with events, when its
    /// client takes them only through a wildcard, and every other call
    /// with plain JSON, without making ready for events.
    pub(crate) async fn handle_unless_streaming(
        &self,
        message: &[u8],
        context: &Context,
    ) -> Option<Option<String>> {
        match wire::parse(message, self.inner.settings.max_batch_len) {
            Ok(Message::Single(Entry::Request(request)))
                if request.id().is_some() && self.inner.streaming.contains(&request.method()) =>
            {
                None
            }
            Ok(Message::Single(entry)) => Some(self.handle_entry(&entry, context).await),
            Ok(Message::Batch(entries)) => Some(self.handle_batch(&entries, context).await),
            Err(error) => Some(Some(wire::failure(None, &error))),
        }
    }
}
