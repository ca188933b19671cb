//! Reading one request object: its members, each at most once, into an
//! [`Entry`]; any other JSON value is an invalid entry.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::Id;
use super::member::Member;
use super::request::{Entry, Request};

/// Reads one entry; with `typed`, its `jsonrpc` and `method` as strings.
#[derive(Clone, Copy)]
pub(super) struct EntrySeed {
    pub(super) typed: bool,
}

impl<'de> DeserializeSeed<'de> for EntrySeed {
    type Value = Entry<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Entry<'de>, D::Error> {
        deserializer.deserialize_any(EntryVisitor { typed: self.typed })
    }
}

pub(super) const NOT_AN_OBJECT: &str = "a request must be a JSON object";

/// Visits one request object; any other JSON value is an invalid entry.
pub(super) struct EntryVisitor {
    /// `jsonrpc` and `method` are read as strings ([`Pass::Typed`]).
    typed: bool,
}

/// Implements the visitor methods for every non-object, non-array JSON value.
macro_rules! visit_scalars {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC request")
    }

    visit_scalars!(Entry::Invalid {
        id: None,
        reason: NOT_AN_OBJECT,
        response: false,
    });

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Entry::Invalid {
            id: None,
            reason: NOT_AN_OBJECT,
            response: false,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Members::default();
        while let Some(member) = map.next_key::<Member>()? {
            members.read(member, &mut map, self.typed)?;
        }
        Ok(members.into_entry())
    }
}

/// The members of a request object as they are read.
#[derive(Default)]
pub(super) struct Members<'de> {
    /// Whether `jsonrpc` is `"2.0"`.
    version: Option<bool>,
    method: Option<MethodName<'de>>,
    params: Option<&'de RawValue>,
    id: Option<&'de RawValue>,
    /// Whether `result` or `error` is there.
    outcome: bool,
    duplicate: Option<&'static str>,
}

impl<'de> Members<'de> {
    /// Reads the value of `member`; with `typed`, `jsonrpc` and `method` as
    /// strings, failing on any other value.
    fn read<A: MapAccess<'de>>(
        &mut self,
        member: Member,
        map: &mut A,
        typed: bool,
    ) -> Result<(), A::Error> {
        let duplicate = match member {
            Member::Version if typed => set_once(&mut self.version, map.next_value::<Version>()?.0),
            Member::Version => set_once(&mut self.version, is_version_2(map.next_value()?)),
            Member::Method if typed => set_once(
                &mut self.method,
                MethodName::Str(map.next_value::<Text<'de>>()?.0),
            ),
            Member::Method => set_once(&mut self.method, map.next_value()?),
            Member::Params => set_once(&mut self.params, map.next_value()?),
            Member::Id => set_once(&mut self.id, map.next_value()?),
            Member::Result | Member::Error => {
                self.outcome = true;
                map.next_value::<IgnoredAny>()?;
                false
            }
            Member::Other => {
                map.next_value::<IgnoredAny>()?;
                false
            }
        };
        if duplicate {
            self.duplicate = Some("a request member appears twice");
        }
        Ok(())
    }

    #[inline]
    fn into_entry(self) -> Entry<'de> {
        let id = self.id.map(Id::new);
        let readable_id = id.flatten().filter(|_| self.duplicate.is_none());
        let response = self.outcome && self.method.is_none();
        let invalid = |reason| Entry::Invalid {
            id: readable_id,
            reason,
            response,
        };
        if let Some(reason) = self.duplicate {
            return invalid(reason);
        }
        if let Some(None) = id {
            return invalid("`id` must be a string, a number or null");
        }
        if self.version != Some(true) {
            return invalid("`jsonrpc` must be \"2.0\"");
        }
        let method = match self.method {
            Some(MethodName::Str(method)) => method,
            Some(MethodName::Other) => return invalid("`method` must be a string"),
            Some(MethodName::NotUnicode) => return invalid("`method` is not valid Unicode"),
            None => return invalid("`method` is missing"),
        };
        if self
            .params
            .is_some_and(|p| !matches!(p.get().as_bytes()[0], b'[' | b'{'))
        {
            return invalid("`params` must be an array or an object");
        }
        Entry::Request(Request {
            method,
            params: self.params,
            id: readable_id,
        })
    }
}

/// Stores `value` unless the slot is taken; returns whether it was (a duplicate).
pub(super) fn set_once<T>(slot: &mut Option<T>, value: T) -> bool {
    if slot.is_some() {
        return true;
    }
    *slot = Some(value);
    false
}

pub(super) fn is_version_2(raw: &RawValue) -> bool {
    // The common spelling is checked byte for byte; an escaped one is decoded.
    raw.get() == "\"2.0\""
        || serde_json::from_str::<Cow<'_, str>>(raw.get()).is_ok_and(|v| v == "2.0")
}

/// `jsonrpc` read as a string ([`Pass::Typed`]): whether it is `"2.0"`.
pub(super) struct Version(bool);

impl<'de> de::Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(VersionVisitor)
    }
}

pub(super) struct VersionVisitor;

impl Visitor<'_> for VersionVisitor {
    type Value = Version;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, version: &str) -> Result<Version, E> {
        Ok(Version(version == "2.0"))
    }
}

/// A string read as such ([`Pass::Typed`]): borrowed unless it has escapes.
pub(super) struct Text<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

pub(super) struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }
}

/// The `method` member: a string (borrowed unless it has escapes) or anything else.
pub(super) enum MethodName<'de> {
    Str(Cow<'de, str>),
    /// A string with a lone surrogate escape (`"\ud800"`), which no Rust string holds.
    NotUnicode,
    Other,
}

impl<'de> de::Deserialize<'de> for MethodName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Read raw: no value of `method` may fail the whole message, not even
        // a number beyond `f64`'s range, which serde_json refuses as a value.
        let raw = <&'de RawValue as de::Deserialize<'de>>::deserialize(deserializer)?;
        let text = raw.get();
        let Some(quoted) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
            return Ok(MethodName::Other);
        };
        if !quoted.contains('\\') {
            return Ok(MethodName::Str(Cow::Borrowed(quoted)));
        }
        Ok(match serde_json::from_str::<String>(text) {
            Ok(name) => MethodName::Str(Cow::Owned(name)),
            Err(_) => MethodName::NotUnicode,
        })
    }
}
