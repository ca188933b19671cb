//! A lone notification from a peer, parsed and checked once, with what every later stage needs of it.

use serde_json::value::RawValue;

use super::{Entry, Message, Request, parse};

/// A valid notification (a request without an id) of a two-way
/// connection's peer: its method and raw params, owned, so that it can be
/// handed from the reader through the cancel notices, the subscriptions
/// and the connection's order to the router without being read again.
#[derive(Debug)]
pub(crate) struct Notification {
    method: Box<str>,
    params: Option<Box<RawValue>>,
}

impl Notification {
    /// The notification `request`, a request without an id, is. Kept out
    /// of line: it is called where requests are parsed, whose path it must
    /// not lengthen.
    #[inline(never)]
    pub(crate) fn of(request: &Request<'_>) -> Notification {
        debug_assert!(request.id.is_none(), "a notification has no id");
        Notification {
            method: request.method.as_ref().into(),
            params: request.params.map(RawValue::to_owned),
        }
    }

    /// The notification `message` holds, if it is a single valid one:
    /// `None` for a request, a response, a batch, or what the router
    /// would answer as invalid.
    pub(crate) fn read(message: &[u8]) -> Option<Notification> {
        // A single object: the batch limit does not apply.
        match parse(message, usize::MAX) {
            Ok(Message::Single(Entry::Request(request))) if request.id.is_none() => {
                Some(Notification::of(&request))
            }
            _ => None,
        }
    }

    /// The method name, its escapes resolved.
    pub(crate) fn method(&self) -> &str {
        &self.method
    }

    /// The `params` member (an array or an object), if present.
    pub(crate) fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// The notification as the router runs it.
    pub(crate) fn as_request(&self) -> Request<'_> {
        Request {
            method: self.method().into(),
            params: self.params(),
            id: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Notification;

    #[test]
    fn a_notification_is_read_with_its_method_and_params() {
        let note =
            Notification::read(br#"{"params":{"a":[1]},"method":"te\u0078t","jsonrpc":"2.0"}"#)
                .expect("a notification");
        assert_eq!(note.method(), "text");
        assert_eq!(note.params().map(|p| p.get()), Some(r#"{"a":[1]}"#));
        let bare = Notification::read(br#"{"jsonrpc":"2.0","method":"m"}"#).unwrap();
        assert!(bare.params().is_none());
    }

    #[test]
    fn what_is_not_a_valid_notification_is_none() {
        for message in [
            r#"{"jsonrpc":"2.0","method":"m","id":1}"#,
            r#"{"jsonrpc":"2.0","result":1,"id":1}"#,
            r#"[{"jsonrpc":"2.0","method":"m"}]"#,
            r#"{"method":"m"}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":7}"#,
            r#"{"jsonrpc":"2.0","method":"m""#,
        ] {
            assert!(
                Notification::read(message.as_bytes()).is_none(),
                "{message}"
            );
        }
    }
}
