//! Telling requests from responses on a connection that carries both.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// What a message arriving on a two-way connection is.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A single notification (a `method` and no `id`), for the router.
    Notification,
    /// A request, a batch, or something invalid: all for the router, which
    /// answers each as the protocol says.
    ForRouter,
    /// Responses to our own requests, each with the id it answers.
    Responses(Vec<(Option<u64>, &'a RawValue)>),
    /// A batch of both: the responses, and the other entries for the router.
    Mixed {
        responses: Vec<(Option<u64>, &'a RawValue)>,
        requests: Vec<&'a RawValue>,
    },
}

/// Classifies `message`. A response carries `result` or `error` and no
/// `method`; a batch is sorted entry by entry, so that neither a request nor
/// a response in it is lost.
pub(crate) fn classify(message: &[u8]) -> Incoming<'_> {
    let first = message.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        Some(b'{') => match serde_json::from_slice::<Peek<'_>>(message) {
            Ok(peek) if peek.is_response() => {
                // The same bytes, as a raw value to hand over whole.
                match serde_json::from_slice::<&RawValue>(message) {
                    Ok(raw) => Incoming::Responses(vec![(peek.id(), raw)]),
                    Err(_) => Incoming::ForRouter,
                }
            }
            Ok(peek) if peek.is_notification() => Incoming::Notification,
            _ => Incoming::ForRouter,
        },
        Some(b'[') => classify_batch(message).unwrap_or(Incoming::ForRouter),
        _ => Incoming::ForRouter,
    }
}

fn classify_batch(message: &[u8]) -> Option<Incoming<'_>> {
    let entries: Vec<&RawValue> = serde_json::from_slice(message).ok()?;
    let mut responses = Vec::new();
    let mut requests = Vec::new();
    for raw in entries {
        match serde_json::from_str::<Peek<'_>>(raw.get()) {
            Ok(peek) if peek.is_response() => responses.push((peek.id(), raw)),
            // A request, or anything else: the router answers it.
            _ => requests.push(raw),
        }
    }
    match (responses.is_empty(), requests.is_empty()) {
        (true, _) => None,
        (false, true) => Some(Incoming::Responses(responses)),
        (false, false) => Some(Incoming::Mixed {
            responses,
            requests,
        }),
    }
}

/// The members that tell a response from a request.
#[derive(Default)]
struct Peek<'a> {
    method: bool,
    outcome: bool,
    id: Option<&'a RawValue>,
}

impl Peek<'_> {
    fn is_response(&self) -> bool {
        self.outcome && !self.method
    }

    fn is_notification(&self) -> bool {
        self.method && self.id.is_none() && !self.outcome
    }

    /// The id as the number our clients send; `None` for any other id.
    fn id(&self) -> Option<u64> {
        self.id.and_then(|raw| raw.get().parse().ok())
    }
}

impl<'de> Deserialize<'de> for Peek<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(PeekVisitor)
    }
}

struct PeekVisitor;

impl<'de> Visitor<'de> for PeekVisitor {
    type Value = Peek<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut peek = Peek::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Method => peek.method = true,
                Key::Outcome => peek.outcome = true,
                Key::Id => {
                    peek.id = Some(map.next_value()?);
                    continue;
                }
                Key::Other => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(peek)
    }
}

enum Key {
    Method,
    Outcome,
    Id,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
        Ok(match name {
            "method" => Key::Method,
            "result" | "error" => Key::Outcome,
            "id" => Key::Id,
            _ => Key::Other,
        })
    }
}
