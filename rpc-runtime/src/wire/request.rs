//! Parsing incoming messages: single requests and batches, borrowed from the input.
//!
//! One pass of serde_json over the input classifies it. Syntax errors become
//! `-32700`; anything that is valid JSON but not a valid request becomes an
//! [`Entry::Invalid`] that still carries the id when it could be read, so the
//! `-32600` reply can echo it.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::Id;
use super::request_object::{EntrySeed, NOT_AN_OBJECT};
use crate::ErrorObject;

/// A well-formed request or notification, borrowed from the input buffer.
///
/// `params` stay raw JSON until the method's decoder reads them, so a request
/// is parsed once and its params are never built into a `serde_json::Value`.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub(super) method: Cow<'a, str>,
    pub(super) params: Option<&'a RawValue>,
    pub(super) id: Option<Id<'a>>,
}

impl<'a> Request<'a> {
    /// The method name.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The method name, to keep beyond this borrow of the request: a copy
    /// of the reference, or of the text when unescaping it made it owned.
    pub fn method_text(&self) -> Cow<'a, str> {
        match &self.method {
            Cow::Borrowed(method) => Cow::Borrowed(method),
            Cow::Owned(method) => Cow::Owned(method.clone()),
        }
    }

    /// The `params` member (an array or an object) as raw JSON, if present.
    pub fn params(&self) -> Option<&'a RawValue> {
        self.params
    }

    /// The request id; `None` for a notification.
    pub fn id(&self) -> Option<Id<'a>> {
        self.id
    }
}

/// One element of a message: a request, or the reason it is not one.
#[derive(Debug)]
pub(crate) enum Entry<'a> {
    Request(Request<'a>),
    Invalid {
        /// The id, when it could be read; the `-32600` reply echoes it.
        id: Option<Id<'a>>,
        reason: &'static str,
        /// It has `result` or `error` and no `method`: a response, which a
        /// two-way connection hands to the call it answers instead.
        #[cfg_attr(
            not(feature = "duplex"),
            expect(
                dead_code,
                reason = "one parser for every build; only a two-way connection reads it"
            )
        )]
        response: bool,
    },
}

/// A whole incoming message.
#[derive(Debug)]
pub(crate) enum Message<'a> {
    Single(Entry<'a>),
    Batch(Vec<Entry<'a>>),
}

/// Parses one message; an `Err` is the single error object to send back.
// Always inlined: every caller is a hot path (a request's, or a two-way
// connection's notification), and a call here would cost each a call more.
#[inline(always)]
pub(crate) fn parse(input: &[u8], max_batch_len: usize) -> Result<Message<'_>, ErrorObject> {
    // Validating the whole input once is cheaper than letting serde_json
    // validate each string and raw value (`id`, `params`) it borrows.
    let input = std::str::from_utf8(input).map_err(not_utf8)?;
    match read(input, max_batch_len, Pass::Typed) {
        Err(err) if err.code() == crate::code::PARSE_ERROR => read_raw(input, max_batch_len),
        // A request, or a refusal every pass would give (an empty or too large batch).
        done => done,
    }
}

/// Parses a message the typed pass refused: its `jsonrpc` or `method` is not
/// a string, or it is not JSON.
#[cold]
fn read_raw(input: &str, max_batch_len: usize) -> Result<Message<'_>, ErrorObject> {
    read(input, max_batch_len, Pass::RawMembers).or_else(|err| {
        if err.code() != crate::code::PARSE_ERROR {
            return Err(err);
        }
        // serde_json refuses to read a number beyond `f64`'s range as a value,
        // so valid JSON whose entry is such a number (`1e400`, `[1, 1e400]`)
        // fails the typed read. That entry is an invalid request, not a parse
        // error: read again with each entry taken raw first. Only a refused
        // message pays for the third pass.
        read(input, max_batch_len, Pass::RawEntries).map_err(|again| match again.code() {
            // Not JSON after all: the raw members' reading says where.
            crate::code::PARSE_ERROR => err,
            // JSON, but refused as a whole (a batch over the limit).
            _ => again,
        })
    })
}

/// How one pass over a message reads it. Each pass accepts every message the
/// one before it accepts, with the same result, and costs more.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// `jsonrpc` and `method` read as strings, the cheapest way: any other
    /// value of theirs fails the pass.
    Typed,
    /// Every member of a request read raw first, so that no member's value
    /// fails the message.
    RawMembers,
    /// Every entry read raw first too, so that no entry fails the message.
    RawEntries,
}

/// Parses one message in one `pass`.
#[inline]
fn read(input: &str, max_batch_len: usize, pass: Pass) -> Result<Message<'_>, ErrorObject> {
    let first = input
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if first == Some(b'[') {
        return read_batch(input, max_batch_len, pass);
    }
    let entry = match pass {
        Pass::RawEntries => serde_json::from_str(input).and_then(entry_from_raw),
        _ => read_entry(input, pass == Pass::Typed),
    };
    entry.map(Message::Single).map_err(parse_failure)
}

/// Parses a batch in one `pass`.
fn read_batch(input: &str, max_batch_len: usize, pass: Pass) -> Result<Message<'_>, ErrorObject> {
    let mut too_large = false;
    let seed = BatchSeed {
        max_len: max_batch_len,
        too_large: &mut too_large,
        pass,
    };
    let mut de = serde_json::Deserializer::from_str(input);
    let batch = seed
        .deserialize(&mut de)
        .and_then(|batch| de.end().map(|()| batch));
    match batch {
        Ok(entries) if entries.is_empty() => {
            Err(invalid_request("an empty batch is not a request"))
        }
        Ok(entries) => Ok(Message::Batch(entries)),
        Err(_) if too_large => Err(batch_too_large(max_batch_len)),
        Err(err) => Err(parse_failure(err)),
    }
}

/// Reads `input`, the whole of it, as one entry.
#[inline]
fn read_entry(input: &str, typed: bool) -> Result<Entry<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(input);
    let entry = EntrySeed { typed }.deserialize(&mut de)?;
    de.end()?;
    Ok(entry)
}

/// `-32600` with the reason in `data`.
#[cold]
pub(crate) fn invalid_request(reason: &str) -> ErrorObject {
    ErrorObject::invalid_request().with_data(&Reason { reason })
}

#[derive(serde::Serialize)]
struct Reason<'r> {
    reason: &'r str,
}

#[cold]
fn not_utf8(err: std::str::Utf8Error) -> ErrorObject {
    ErrorObject::parse_error().with_data(&Reason {
        reason: &format!("invalid UTF-8 at byte {}", err.valid_up_to()),
    })
}

#[cold]
fn parse_failure(err: serde_json::Error) -> ErrorObject {
    ErrorObject::parse_error().with_data(&Reason {
        reason: &err.to_string(),
    })
}

#[cold]
fn batch_too_large(max_len: usize) -> ErrorObject {
    #[derive(serde::Serialize)]
    struct Data<'r> {
        reason: &'r str,
        max_batch_len: usize,
    }
    ErrorObject::new(crate::code::INVALID_REQUEST, "Batch too large").with_data(&Data {
        reason: &format!("a batch may hold at most {max_len} requests"),
        max_batch_len: max_len,
    })
}

struct BatchSeed<'f> {
    max_len: usize,
    too_large: &'f mut bool,
    pass: Pass,
}

/// The entry `raw` is: a request object, or an invalid entry for any other value.
fn entry_from_raw(raw: &RawValue) -> Result<Entry<'_>, serde_json::Error> {
    if raw.get().starts_with('{') {
        read_entry(raw.get(), false)
    } else {
        Ok(Entry::Invalid {
            id: None,
            reason: NOT_AN_OBJECT,
            response: false,
        })
    }
}

impl<'de> DeserializeSeed<'de> for BatchSeed<'_> {
    type Value = Vec<Entry<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BatchSeed<'_> {
    type Value = Vec<Entry<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a batch of requests")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        loop {
            if entries.len() == self.max_len {
                // Refuse at the first element over the limit, before parsing the rest.
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    *self.too_large = true;
                    return Err(de::Error::custom("batch too large"));
                }
                return Ok(entries);
            }
            let entry = match self.pass {
                Pass::RawEntries => match seq.next_element::<&'de RawValue>()? {
                    Some(raw) => Some(entry_from_raw(raw).map_err(de::Error::custom)?),
                    None => None,
                },
                pass => seq.next_element_seed(EntrySeed {
                    typed: pass == Pass::Typed,
                })?,
            };
            match entry {
                Some(entry) => entries.push(entry),
                None => return Ok(entries),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(input: &[u8]) -> Result<Entry<'_>, ErrorObject> {
        match parse(input, 8)? {
            Message::Single(entry) => Ok(entry),
            Message::Batch(_) => panic!("not a batch"),
        }
    }

    #[test]
    fn version_is_checked_as_a_string() {
        let ok = single(br#"{"jsonrpc":"2\u002e0","method":"m","id":1}"#).unwrap();
        assert!(
            matches!(ok, Entry::Request(_)),
            "an escaped \"2.0\" is \"2.0\""
        );
        for bad in [
            &br#"{"jsonrpc":2.0,"method":"m","id":1}"#[..],
            br#"{"jsonrpc":"1.0","method":"m","id":1}"#,
            br#"{"jsonrpc":{"v":"2.0"},"method":"m","id":1}"#,
            br#"{"jsonrpc":["2.0"],"method":"m","id":1}"#,
            br#"{"method":"m","id":1}"#,
            br#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m","id":1}"#,
        ] {
            assert!(
                matches!(single(bad).unwrap(), Entry::Invalid { .. }),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn the_typed_pass_agrees_with_the_raw_one_or_refuses() {
        for input in [
            r#"{"jsonrpc":"2.0","method":"m","params":[1],"id":1}"#,
            r#"{"jsonrpc":"2\u002e0","method":"\u006d","id":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"m","method":"n","id":1}"#,
            r#"{"jsonrpc":"1.0","method":"m","id":1}"#,
            r#"{"jsonrpc":"2.0","method":"\ud800","id":1}"#,
            r#"{"jsonrpc":2,"method":"m","id":1}"#,
            r#"{"jsonrpc":"2.0","method":1e400,"id":1}"#,
            r#"[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":["m"]}]"#,
        ] {
            let raw = format!("{:?}", read(input, 8, Pass::RawMembers));
            if let Ok(typed) = read(input, 8, Pass::Typed) {
                assert_eq!(format!("{:?}", Ok::<_, ErrorObject>(typed)), raw, "{input}");
            }
            assert_eq!(format!("{:?}", parse(input.as_bytes(), 8)), raw, "{input}");
        }
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        for input in [
            &b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\",\"id\":1}"[..],
            b"[{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":\"\xc3\"}]",
        ] {
            let err = parse(input, 8).unwrap_err();
            assert_eq!(err.code(), crate::code::PARSE_ERROR);
        }
    }
}
