//! The head of a message from a peer: its method, id and params, read once to schedule it.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::Notification;

/// What a connection needs of one message object before it runs it: the
/// method (whose [`Turn`](crate::Turn) says when) and the params (to read
/// a turn's key from). Read with serde, borrowing from the message; the
/// params are not parsed until a key is asked for.
#[derive(Debug, Default)]
pub(crate) struct Head<'a> {
    pub(crate) method: Option<Cow<'a, str>>,
    params: Option<&'a RawValue>,
}

impl<'a> Head<'a> {
    /// The head of `message`; `None` when it is not a JSON object.
    pub(crate) fn read(message: &'a [u8]) -> Option<Head<'a>> {
        serde_json::from_slice(message).ok()
    }

    /// The head of a notification already read: nothing to read again.
    pub(crate) fn of(notification: &'a Notification) -> Head<'a> {
        Head {
            method: Some(Cow::Borrowed(notification.method())),
            params: notification.params(),
        }
    }

    /// The JSON text of the value at `pointer` (RFC 6901) in the params;
    /// `None` if there is none there.
    pub(crate) fn key(&self, pointer: &str) -> Option<Box<str>> {
        let mut value = self.params?;
        let segments = pointer.strip_prefix('/')?.split('/');
        for segment in segments {
            let segment = segment.replace("~1", "/").replace("~0", "~");
            value = member(value, &segment)?;
        }
        Some(value.get().into())
    }
}

/// The member `name` of an object, or the element at index `name` of an array.
fn member<'a>(value: &'a RawValue, name: &str) -> Option<&'a RawValue> {
    let mut deserializer = serde_json::Deserializer::from_str(value.get());
    deserializer.deserialize_any(Member { name }).ok().flatten()
}

struct Member<'n> {
    name: &'n str,
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or an array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if found.is_none() && key == self.name {
                found = Some(map.next_value::<&RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Ok(index) = self.name.parse::<usize>() else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(None);
        };
        let mut found = None;
        let mut at = 0;
        while let Some(element) = seq.next_element_seed(Element(at == index))? {
            found = found.or(element);
            at += 1;
        }
        Ok(found)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// One element of an array: kept raw if it is the one looked for, else skipped.
struct Element(bool);

impl<'de> DeserializeSeed<'de> for Element {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        match self.0 {
            true => <&RawValue>::deserialize(deserializer).map(Some),
            false => IgnoredAny::deserialize(deserializer).map(|_| None),
        }
    }
}

impl<'de> Deserialize<'de> for Head<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(HeadVisitor)
    }
}

struct HeadVisitor;

impl<'de> Visitor<'de> for HeadVisitor {
    type Value = Head<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut head = Head::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                // A method that is not a string is the router's to refuse.
                "method" => {
                    let raw: &'de RawValue = map.next_value()?;
                    head.method = serde_json::from_str(raw.get()).ok();
                }
                "params" => head.params = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(message: &str, pointer: &str) -> Option<String> {
        Head::read(message.as_bytes())?
            .key(pointer)
            .map(String::from)
    }

    #[test]
    fn the_head_names_the_method() {
        let head = Head::read(br#"{"jsonrpc":"2.0","method":"te\u0078t/hover","id":7}"#).unwrap();
        assert_eq!(head.method.as_deref(), Some("text/hover"));
        assert_eq!(Head::read(br#"{"method":7}"#).unwrap().method, None);
        assert!(Head::read(b"[1]").is_none());
    }

    #[test]
    fn a_key_is_the_json_text_at_its_pointer() {
        let did_change = r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{
            "contentChanges":[{"text":"{\"textDocument\":1}"}],
            "textDocument":{"version":3,"uri":"file:///a%20b.tally"}}}"#;
        assert_eq!(
            key(did_change, "/textDocument/uri").as_deref(),
            Some(r#""file:///a%20b.tally""#)
        );
        assert_eq!(
            key(did_change, "/contentChanges/0/text").as_deref(),
            Some(r#""{\"textDocument\":1}""#)
        );
        assert_eq!(
            key(r#"{"params":{"a/b":{"~":[1,2]}}}"#, "/a~1b/~0/1").as_deref(),
            Some("2")
        );
        for missing in [
            "/textDocument/line",
            "/contentChanges/1",
            "/contentChanges/x",
            "textDocument",
        ] {
            assert_eq!(key(did_change, missing), None, "{missing}");
        }
        assert_eq!(key(r#"{"method":"m"}"#, "/a"), None);
    }
}
