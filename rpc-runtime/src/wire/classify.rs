//! Telling requests from responses on a connection that carries both.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::Notification;
use super::member::Member;

/// What a message arriving on a two-way connection is.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A single valid notification, read once: what it is for (a cancel
    /// notice, an item of a subscription, or the router) is told by its
    /// method and params, not by reading it again.
    Notification(Notification),
    /// A request, a batch, or something invalid (an invalid notification
    /// too): all for the router, which answers each as the protocol says.
    ForRouter,
    /// Responses to our own requests, each with the id it answers.
    Responses(Vec<(Option<u64>, &'a RawValue)>),
    /// A batch of both: the responses, and the other entries for the router.
    Mixed {
        responses: Vec<(Option<u64>, &'a RawValue)>,
        requests: Vec<&'a RawValue>,
    },
}

/// Whether `message` is a single object (a request, a notification or a
/// response), not a batch or something invalid.
pub(crate) fn is_object(message: &[u8]) -> bool {
    first_byte(message) == Some(&b'{')
}

fn first_byte(message: &[u8]) -> Option<&u8> {
    message.iter().find(|b| !b.is_ascii_whitespace())
}

/// Classifies `message`. A response carries `result` or `error` and no
/// `method`; a batch is sorted entry by entry, so that neither a request nor
/// a response in it is lost.
pub(crate) fn classify(message: &[u8]) -> Incoming<'_> {
    match first_byte(message) {
        // Requests and notifications, nearly everything a server receives,
        // are told apart by the scanner; responses are read by serde, which
        // also checks that they are JSON before they are handed over, and
        // notifications by the router's parser, once, for every later stage.
        Some(b'{') => match scan(message) {
            Some(shape) if shape.is_notification() => notification(message),
            Some(shape) if !shape.is_response() => Incoming::ForRouter,
            _ => classify_object(message),
        },
        Some(b'[') => classify_batch(message).unwrap_or(Incoming::ForRouter),
        _ => Incoming::ForRouter,
    }
}

fn classify_object(message: &[u8]) -> Incoming<'_> {
    match serde_json::from_slice::<Peek<'_>>(message) {
        Ok(peek) if peek.shape.is_response() => {
            // The same bytes, as a raw value to hand over whole.
            match serde_json::from_slice::<&RawValue>(message) {
                Ok(raw) => Incoming::Responses(vec![(peek.id(), raw)]),
                Err(_) => Incoming::ForRouter,
            }
        }
        Ok(peek) if peek.shape.is_notification() => notification(message),
        _ => Incoming::ForRouter,
    }
}

/// The notification `message` is shaped as, read; the router's to answer
/// if it is not a valid one.
fn notification(message: &[u8]) -> Incoming<'_> {
    match Notification::read(message) {
        Some(notification) => Incoming::Notification(notification),
        None => Incoming::ForRouter,
    }
}

fn classify_batch(message: &[u8]) -> Option<Incoming<'_>> {
    let entries: Vec<&RawValue> = serde_json::from_slice(message).ok()?;
    let mut responses = Vec::new();
    let mut requests = Vec::new();
    for raw in entries {
        match serde_json::from_str::<Peek<'_>>(raw.get()) {
            Ok(peek) if peek.shape.is_response() => responses.push((peek.id(), raw)),
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

/// Which of the members that tell a response from a request an object has.
#[derive(Debug, Default, PartialEq)]
struct Shape {
    method: bool,
    /// `result` or `error`.
    outcome: bool,
    id: bool,
}

impl Shape {
    fn is_response(&self) -> bool {
        self.outcome && !self.method
    }

    /// A `method` and no `id`, as the router reads it: whatever else it
    /// has, the router would run it without a reply.
    fn is_notification(&self) -> bool {
        self.method && !self.id
    }

    fn saw(&mut self, name: &[u8]) {
        match name {
            b"method" => self.method = true,
            b"result" | b"error" => self.outcome = true,
            b"id" => self.id = true,
            _ => {}
        }
    }
}

/// The shape of the object `message` holds, found by a scanner that reads
/// only its member names and steps over their values: a fraction of a full
/// parse, which the router does anyway. `None` when a member name has an
/// escape, or the text is not an object the scanner can follow; serde
/// decides those. Invalid JSON inside a value may pass the scanner: the
/// message then goes to the router, which answers `-32700`.
fn scan(message: &[u8]) -> Option<Shape> {
    let mut shape = Shape::default();
    let mut at = skip_whitespace(message, 0);
    if message.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(message, at + 1);
    if message.get(at) == Some(&b'}') {
        return trailing_whitespace(message, at + 1).then_some(shape);
    }
    loop {
        if message.get(at) != Some(&b'"') {
            return None;
        }
        let name_end = at
            + 1
            + message[at + 1..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')?;
        if message[name_end] == b'\\' {
            return None;
        }
        shape.saw(&message[at + 1..name_end]);
        at = skip_whitespace(message, name_end + 1);
        if message.get(at) != Some(&b':') {
            return None;
        }
        at = skip_whitespace(message, skip_value(message, at + 1)?);
        match message.get(at) {
            Some(b',') => at = skip_whitespace(message, at + 1),
            Some(b'}') => return trailing_whitespace(message, at + 1).then_some(shape),
            _ => return None,
        }
    }
}

/// The index of the `,` or `}` that ends the member value starting at `at`.
/// Nesting is counted, not recursed into, so depth costs no stack.
fn skip_value(message: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *message.get(at)? {
            b'"' => at = skip_string(message, at)?,
            b'{' | b'[' => {
                depth += 1;
                at += 1;
            }
            b'}' | b']' if depth == 0 => return Some(at),
            b'}' | b']' => {
                depth -= 1;
                at += 1;
            }
            b',' if depth == 0 => return Some(at),
            _ => at += 1,
        }
    }
}

/// The index just past the string whose opening quote is at `at`.
fn skip_string(message: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        match *message.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

fn skip_whitespace(message: &[u8], at: usize) -> usize {
    at + message.get(at..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
    })
}

fn trailing_whitespace(message: &[u8], at: usize) -> bool {
    skip_whitespace(message, at) == message.len()
}

/// The members that tell a response from a request, as serde reads them.
#[derive(Default)]
struct Peek<'a> {
    shape: Shape,
    id: Option<&'a RawValue>,
}

impl Peek<'_> {
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
        while let Some(key) = map.next_key::<Member>()? {
            match key {
                Member::Method => peek.shape.method = true,
                Member::Result | Member::Error => peek.shape.outcome = true,
                Member::Id => {
                    peek.shape.id = true;
                    peek.id = Some(map.next_value()?);
                    continue;
                }
                Member::Version | Member::Params | Member::Other => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(peek)
    }
}

#[cfg(test)]
mod tests {
    use super::{Peek, scan};

    /// What serde reads, for comparison.
    fn serde_shape(message: &str) -> Option<super::Shape> {
        serde_json::from_str::<Peek<'_>>(message)
            .ok()
            .map(|peek| peek.shape)
    }

    #[test]
    fn the_scanner_reads_what_serde_reads() {
        for message in [
            r#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#,
            r#"{"jsonrpc":"2.0","method":"note","params":{"id":1,"result":[]}}"#,
            r#" { "id" : null , "result" : {"method":"x"} } "#,
            r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"}\"]"},"id":"a,b"}"#,
            r#"{"method":"m","params":["\\",{"a":[[],{}]}],"x":true,"y":1e400}"#,
            r#"{"method":"m","method":"again"}"#,
            r#"{}"#,
            "{\"method\":\"m\"}\n",
        ] {
            assert_eq!(scan(message.as_bytes()), serde_shape(message), "{message}");
        }
    }

    #[test]
    fn the_scanner_leaves_to_serde_what_it_cannot_follow() {
        for message in [
            r#"{"me\u0074hod":"m"}"#,
            r#"{"method":"m""#,
            r#"{"method":"m"} x"#,
            r#"{"method" "m"}"#,
            r#"{method:"m"}"#,
            r#"{"method":"m",}x"#,
        ] {
            assert_eq!(scan(message.as_bytes()), None, "{message}");
        }
    }
}
