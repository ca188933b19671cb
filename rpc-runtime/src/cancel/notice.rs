//! The cancel notification on the wire of a two-way connection: the text
//! this end sends for a call it gives up on, and the request a peer's
//! notification names.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::CancelPolicy;
use crate::wire::{Id, Notification};

impl CancelPolicy {
    /// The text of the notification that cancels our call `id`.
    pub(crate) fn notification(&self, id: u64) -> String {
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": self.method(),
            "params": { self.id_member(): id },
        })
        .to_string()
    }

    /// The answer to the cancelled request `id`, if this policy gives one.
    pub(crate) fn answer_to(&self, id: &RawValue) -> Option<String> {
        let error = self.answer.as_ref()?;
        Some(crate::wire::failure(Some(Id::new(id)?), error))
    }

    /// If `notification` is this policy's, the id of the request it
    /// cancels (`None` inside when it names none, or not one a request may
    /// have). The notification has been read once, at the connection's
    /// reader: its method is compared, and only a cancel's params are read.
    pub(crate) fn cancelled_by(&self, notification: &Notification) -> Option<Option<RequestKey>> {
        if notification.method() != self.method {
            return None;
        }
        let params = notification.params().and_then(|params| {
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

/// A request's id, owned, as a cancel names it: strings compare by their
/// text with escapes resolved, numbers by their JSON text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RequestKey {
    Number(Box<str>),
    Text(Box<str>),
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// What `policy` makes of `message`, read as the connection reads it.
    fn cancelled(policy: &CancelPolicy, message: &str) -> Option<Option<RequestKey>> {
        policy.cancelled_by(&Notification::read(message.as_bytes())?)
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
