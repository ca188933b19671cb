//! What the protocol says the reply to any input must be, worked out from the
//! input alone, and the check of a reply against it.
//!
//! The analysis reads the input with serde_json's grammar only (raw values,
//! member names decoded as strings), never with the router's own parser, and
//! applies JSON-RPC 2.0's rules to what it finds: which entries are answered,
//! with which id (the raw text sent), and with what kind of answer.

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::services::{KNOWN, MAX_BATCH};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// The reply the protocol calls for.
#[derive(Debug)]
pub enum Expected {
    /// No reply at all (a notification, a batch of them).
    Nothing,
    /// Not JSON: one `-32700` object with id `null`.
    ParseError,
    /// A batch longer than [`MAX_BATCH`]: one `-32600` object with id `null`.
    TooLarge,
    /// Not JSON, but its first [`MAX_BATCH`]` + 1` entries are: the router
    /// refuses the length before it reads the rest, so either refusal fits.
    TooLargeOrParseError,
    /// One response object.
    Single(Entry),
    /// A non-empty array with one response per entry.
    Batch(Vec<Entry>),
    /// Not UTF-8: JSON text must be, but a reader may skip over bad bytes it
    /// never decodes. Any well-formed reply, or none, will do.
    Unclear,
}

/// One expected response.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The raw id text to echo; `None` for `null`.
    pub id: Option<String>,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// `-32600`.
    Invalid,
    /// A well-formed call of `method`.
    Call { method: String },
}

/// A response as read back from the reply text.
#[derive(Debug, Clone)]
pub struct Response {
    /// The raw id text.
    pub id: String,
    pub outcome: Outcome,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    /// The raw `result` text.
    Result(String),
    Error {
        code: i64,
        message: String,
        data: Option<String>,
    },
}

impl Outcome {
    pub fn code(&self) -> Option<i64> {
        match self {
            Outcome::Error { code, .. } => Some(*code),
            Outcome::Result(_) => None,
        }
    }
}

/// A reply as read back.
#[derive(Debug)]
pub enum Reply {
    Nothing,
    Single(Response),
    Batch(Vec<Response>),
}

/// Checks every invariant on the reply to `input`; the error says which broke.
pub fn check(input: &[u8], reply: Option<&str>) -> Result<Reply, String> {
    let parsed = match reply {
        Some(text) => read_reply(text).map_err(|err| format!("malformed reply {text:?}: {err}"))?,
        None => Reply::Nothing,
    };
    let expected = expect(input);
    conforms(&expected, &parsed).map_err(|err| {
        format!(
            "{err}\n  input:    {:?}\n  expected: {expected:?}\n  reply:    {reply:?}",
            String::from_utf8_lossy(input)
        )
    })?;
    Ok(parsed)
}

fn conforms(expected: &Expected, reply: &Reply) -> Result<(), String> {
    let refusal = |code: i64| match reply {
        Reply::Single(r) if r.id == "null" && r.outcome.code() == Some(code) => Ok(()),
        _ => Err(format!("expected one {code} error with id null")),
    };
    match expected {
        Expected::Unclear => Ok(()),
        Expected::Nothing => match reply {
            Reply::Nothing => Ok(()),
            _ => Err("expected no reply".to_owned()),
        },
        Expected::ParseError => refusal(PARSE_ERROR),
        Expected::TooLarge => refusal(INVALID_REQUEST),
        Expected::TooLargeOrParseError => {
            refusal(PARSE_ERROR).or_else(|_| refusal(INVALID_REQUEST))
        }
        Expected::Single(entry) => match reply {
            Reply::Single(response) => fits(entry, response),
            _ => Err("expected a single response".to_owned()),
        },
        Expected::Batch(entries) => match reply {
            Reply::Batch(responses) if responses.len() == entries.len() => {
                if perfect_match(entries, responses, |e, r| fits(e, r).is_ok()) {
                    Ok(())
                } else {
                    Err("the responses do not match the entries one to one".to_owned())
                }
            }
            Reply::Batch(responses) => Err(format!(
                "expected {} responses, got {}",
                entries.len(),
                responses.len()
            )),
            _ => Err("expected a batch reply".to_owned()),
        },
    }
}

/// Whether `response` is a right answer to `entry`.
fn fits(entry: &Entry, response: &Response) -> Result<(), String> {
    let id = entry.id.as_deref().unwrap_or("null");
    if response.id != id {
        return Err(format!("id {} echoed as {}", id, response.id));
    }
    let code = response.outcome.code();
    match &entry.kind {
        Kind::Invalid if code == Some(INVALID_REQUEST) => Ok(()),
        Kind::Invalid => Err("expected -32600".to_owned()),
        Kind::Call { method } => match KNOWN.iter().find(|(name, _)| name == method) {
            None if code == Some(METHOD_NOT_FOUND) => Ok(()),
            None => Err(format!("expected -32601 for {method:?}")),
            // `fail` answers with whatever code it was given.
            Some(("fail", _)) => Ok(()),
            // A notification method called with an id answers `null`.
            Some((_, true)) => match &response.outcome {
                Outcome::Result(raw) if raw == "null" => Ok(()),
                _ if code == Some(INVALID_PARAMS) => Ok(()),
                _ => Err(format!("expected null or -32602 from {method}")),
            },
            Some(_) if code.is_none() || code == Some(INVALID_PARAMS) => Ok(()),
            Some(_) => Err(format!("expected a result or -32602 from {method}")),
        },
    }
}

/// Whether each expected item can be paired with its own response (replies
/// to a batch may come in any order). Kuhn's augmenting paths.
pub fn perfect_match<E, R>(expected: &[E], got: &[R], fits: impl Fn(&E, &R) -> bool) -> bool {
    if expected.len() != got.len() {
        return false;
    }
    let edges: Vec<Vec<usize>> = expected
        .iter()
        .map(|e| (0..got.len()).filter(|&j| fits(e, &got[j])).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; got.len()];
    fn augment(
        i: usize,
        edges: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for &j in &edges[i] {
            if !seen[j] {
                seen[j] = true;
                if owner[j].is_none_or(|k| augment(k, edges, owner, seen)) {
                    owner[j] = Some(i);
                    return true;
                }
            }
        }
        false
    }
    (0..expected.len()).all(|i| augment(i, &edges, &mut owner, &mut vec![false; got.len()]))
}

// ---------------------------------------------------------------------------
// The expected reply, from the input alone.

/// Works out what the protocol calls for in reply to `input`.
pub fn expect(input: &[u8]) -> Expected {
    let Ok(text) = std::str::from_utf8(input) else {
        return Expected::Unclear;
    };
    // JSON's whitespace, and only that, may come first.
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    let first = trimmed.as_bytes().first();
    let is_json = serde_json::from_str::<IgnoredAny>(text).is_ok();
    if first != Some(&b'[') {
        if !is_json {
            return Expected::ParseError;
        }
        return match entry(trimmed) {
            Ok(Some(entry)) => Expected::Single(entry),
            Ok(None) => Expected::Nothing,
            Err(Undecodable) => Expected::ParseError,
        };
    }
    // A batch. Its elements, as far as they can be read.
    let (elements, complete) = batch_prefix(text);
    if elements.len() > MAX_BATCH {
        // Refused at the first entry over the limit; the entries before it
        // are read as requests, so one that cannot be is still a parse error.
        let readable = elements[..MAX_BATCH].iter().all(|e| entry(e).is_ok());
        return match (readable, complete) {
            (false, _) => Expected::ParseError,
            (true, true) => Expected::TooLarge,
            (true, false) => Expected::TooLargeOrParseError,
        };
    }
    if !complete || !is_json {
        return Expected::ParseError;
    }
    if elements.is_empty() {
        return Expected::Single(Entry {
            id: None,
            kind: Kind::Invalid,
        });
    }
    let mut answered = Vec::new();
    for element in elements {
        match entry(element) {
            Ok(Some(entry)) => answered.push(entry),
            Ok(None) => {}
            Err(Undecodable) => return Expected::ParseError,
        }
    }
    if answered.is_empty() {
        Expected::Nothing
    } else {
        Expected::Batch(answered)
    }
}

/// A request object whose member names cannot be decoded as strings (a lone
/// surrogate escape): the reader gives up on the whole message.
#[derive(Debug)]
pub struct Undecodable;

/// What one entry calls for: `None` for a valid notification.
fn entry(raw: &str) -> Result<Option<Entry>, Undecodable> {
    let invalid = |id: Option<&RawValue>| {
        Ok(Some(Entry {
            id: id.map(|raw| raw.get().to_owned()),
            kind: Kind::Invalid,
        }))
    };
    if !raw.starts_with('{') {
        return invalid(None);
    }
    let members: Members<'_> = serde_json::from_str(raw).map_err(|_| Undecodable)?;
    let find = |name: &str| -> (usize, Option<&RawValue>) {
        let mut found = members.0.iter().filter(|(key, _)| key == name);
        let first = found.next().map(|(_, value)| *value);
        (first.map_or(0, |_| 1 + found.count()), first)
    };
    let (versions, version) = find("jsonrpc");
    let (methods, method) = find("method");
    let (params_count, params) = find("params");
    let (ids, id) = find("id");
    if versions > 1 || methods > 1 || params_count > 1 || ids > 1 {
        return invalid(None);
    }
    if id.is_some_and(|id| {
        !id.get().starts_with([
            '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
        ])
    }) {
        return invalid(None);
    }
    let decoded =
        |raw: Option<&RawValue>| raw.and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
    if decoded(version).as_deref() != Some("2.0") {
        return invalid(id);
    }
    let Some(method) = decoded(method) else {
        return invalid(id);
    };
    if params.is_some_and(|p| !p.get().starts_with(['[', '{'])) {
        return invalid(id);
    }
    Ok(id.map(|id| Entry {
        id: Some(id.get().to_owned()),
        kind: Kind::Call { method },
    }))
}

/// An object's members in order, duplicates kept.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    members.push((key, map.next_value()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// The first elements of a batch, up to one past [`MAX_BATCH`], as far as
/// they are valid JSON; and whether the whole text is a complete array.
fn batch_prefix(text: &str) -> (Vec<&str>, bool) {
    struct Prefix<'p, 'de>(&'p mut Vec<&'de str>);
    impl<'de> DeserializeSeed<'de> for Prefix<'_, 'de> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    impl<'de> Visitor<'de> for Prefix<'_, 'de> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while self.0.len() <= MAX_BATCH {
                match seq.next_element::<&'de RawValue>()? {
                    Some(raw) => self.0.push(raw.get()),
                    None => return Ok(()),
                }
            }
            // Past the limit: the rest is skipped, still checked as JSON.
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(())
        }
    }
    let mut elements = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let complete = Prefix(&mut elements).deserialize(&mut de).is_ok() && de.end().is_ok();
    (elements, complete)
}

// ---------------------------------------------------------------------------
// Reading the reply back, checking its shape.

/// Reads reply text: one response object, or a non-empty array of them.
pub fn read_reply(text: &str) -> Result<Reply, String> {
    if text.starts_with('[') {
        let raws: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if raws.is_empty() {
            return Err("an empty batch reply".to_owned());
        }
        let responses = raws
            .iter()
            .map(|raw| read_response(raw.get()))
            .collect::<Result<_, _>>()?;
        Ok(Reply::Batch(responses))
    } else {
        read_response(text).map(Reply::Single)
    }
}

/// Reads one response object: `jsonrpc: "2.0"`, an id, and exactly one of
/// `result` and `error`, nothing else and nothing twice.
pub fn read_response(text: &str) -> Result<Response, String> {
    if !text.starts_with('{') {
        return Err(format!("a response is not an object: {text}"));
    }
    let members: Members<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut keys: Vec<&str> = members.0.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    let get = |name: &str| {
        members
            .0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.get())
    };
    match keys.as_slice() {
        ["error", "id", "jsonrpc"] | ["id", "jsonrpc", "result"] => {}
        _ => return Err(format!("a response has members {keys:?}")),
    }
    if get("jsonrpc") != Some(r#""2.0""#) {
        return Err("`jsonrpc` is not \"2.0\"".to_owned());
    }
    let id = get("id").unwrap_or_default();
    if !id.starts_with([
        '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
    ]) {
        return Err(format!("id {id} is not a string, a number or null"));
    }
    let outcome = match get("result") {
        Some(result) => Outcome::Result(result.to_owned()),
        None => read_error(get("error").unwrap_or_default())?,
    };
    Ok(Response {
        id: id.to_owned(),
        outcome,
    })
}

fn read_error(text: &str) -> Result<Outcome, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Error<'a> {
        #[serde(borrow)]
        code: &'a RawValue,
        message: String,
        #[serde(borrow, default)]
        data: Option<&'a RawValue>,
    }
    let error: Error<'_> =
        serde_json::from_str(text).map_err(|e| format!("bad error object {text}: {e}"))?;
    let code = error.code.get();
    let digits = code.strip_prefix('-').unwrap_or(code);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("error code {code} is not an integer"));
    }
    let code = code
        .parse()
        .map_err(|_| format!("error code {code} is out of range"))?;
    Ok(Outcome::Error {
        code,
        message: error.message,
        data: error.data.map(|d| d.get().to_owned()),
    })
}
