//! The cancel notification on the wire of a two-way connection: the text
//! this end sends for a call it gives up on, and the request a peer's
//! notification names.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::CancelPolicy;
use crate::wire::Id;

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

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// A notification as far as a cancel needs it.
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
