//! The floor: the least work a correct JSON-RPC 2.0 server must do for the
//! benchmark API, written by hand with serde_json and nothing else.
//!
//! It parses a request borrowed from the input (`&RawValue` params and id),
//! matches the method, decodes the params (by position or by name: a derived
//! struct accepts both), runs the handler and serializes the response with the
//! id echoed byte for byte. It is *correct* (every rule a client can observe
//! on these methods holds: `-32700`, `-32600`, `-32601`, `-32602`,
//! notifications never answered, batches, ids echoed exactly) but it has no
//! framework: no method table, no boxed futures, no panic isolation, no
//! per-param error detail beyond serde's message, no concurrency inside a
//! batch (its handlers never wait), and a batch is read in two passes (array
//! of raw elements, then each element), as a straightforward hand-written
//! server does.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::api::{AddParams, add, record};

#[derive(Deserialize)]
struct Req<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    /// `Some` whenever the member is present, `null` included; absent means
    /// a notification.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>>(de: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(de).map(Some)
}

#[derive(Serialize)]
struct ErrorObj {
    code: i32,
    message: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<String>,
}

fn failure(
    id: Option<&RawValue>,
    code: i32,
    message: &'static str,
    data: Option<String>,
) -> String {
    let error = ErrorObj {
        code,
        message,
        data,
    };
    envelope(br#"{"jsonrpc":"2.0","error":"#, &error, id)
}

fn success<T: Serialize>(id: &RawValue, result: T) -> String {
    envelope(br#"{"jsonrpc":"2.0","result":"#, &result, Some(id))
}

/// The response text: the constant `head`, `value`, then the id (`null` if
/// `None`). Writing the envelope as text rather than serializing a
/// `{jsonrpc, result, id}` struct spares serde_json from scanning the
/// constant strings for escapes (typed-rpc does the same).
fn envelope<T: Serialize>(head: &[u8], value: &T, id: Option<&RawValue>) -> String {
    let mut text = Vec::with_capacity(128);
    text.extend_from_slice(head);
    serde_json::to_writer(&mut text, value).expect("the value serializes");
    text.extend_from_slice(br#","id":"#);
    text.extend_from_slice(id.map_or("null", |id| id.get()).as_bytes());
    text.push(b'}');
    String::from_utf8(text).expect("serde_json writes UTF-8")
}

/// Handles one message (request, notification or batch): the response text,
/// or `None` when nothing is to be sent.
pub fn handle(input: &[u8]) -> Option<String> {
    // Validate UTF-8 once, then parse as `str`: serde_json then skips
    // re-validating every string and raw value it borrows (cheaper than
    // `from_slice`, and what typed-rpc does too).
    let Ok(input) = std::str::from_utf8(input) else {
        return Some(failure(None, -32700, "Parse error", None));
    };
    let first = input.bytes().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'[') {
        batch(input)
    } else {
        single(input)
    }
}

fn batch(input: &str) -> Option<String> {
    let entries: Vec<&RawValue> = match serde_json::from_str(input) {
        Ok(entries) => entries,
        Err(_) => return Some(failure(None, -32700, "Parse error", None)),
    };
    if entries.is_empty() {
        return Some(failure(None, -32600, "Invalid Request", None));
    }
    let mut out = String::new();
    for entry in entries {
        if let Some(reply) = single(entry.get()) {
            out.push(if out.is_empty() { '[' } else { ',' });
            out.push_str(&reply);
        }
    }
    if out.is_empty() {
        return None;
    }
    out.push(']');
    Some(out)
}

fn single(input: &str) -> Option<String> {
    let req: Req = match serde_json::from_str(input) {
        Ok(req) => req,
        Err(err) if err.is_data() => {
            return Some(failure(None, -32600, "Invalid Request", None));
        }
        Err(_) => return Some(failure(None, -32700, "Parse error", None)),
    };
    let valid_id = req
        .id
        .is_none_or(|id| matches!(id.get().as_bytes()[0], b'"' | b'n' | b'-' | b'0'..=b'9'));
    let valid_params = req
        .params
        .is_none_or(|p| matches!(p.get().as_bytes()[0], b'[' | b'{'));
    if req.jsonrpc != "2.0" || !valid_id || !valid_params {
        return Some(failure(None, -32600, "Invalid Request", None));
    }
    call(&req)
}

fn call(req: &Req<'_>) -> Option<String> {
    match &*req.method {
        // `add` by position or by name, and `add_struct` (the whole params as
        // a struct) decode the same way here: a derived struct reads both.
        "add" | "add_struct" => {
            let id = req.id?;
            Some(match decode::<AddParams>(req.params) {
                Ok(p) => success(id, add(p.a, p.b)),
                Err(reason) => failure(Some(id), -32602, "Invalid params", Some(reason)),
            })
        }
        "notify" => match (decode::<AddParams>(req.params), req.id) {
            (Ok(p), id) => {
                record(p.a, p.b);
                id.map(|id| success(id, ()))
            }
            (Err(reason), Some(id)) => {
                Some(failure(Some(id), -32602, "Invalid params", Some(reason)))
            }
            (Err(_), None) => None,
        },
        _ => req
            .id
            .map(|id| failure(Some(id), -32601, "Method not found", None)),
    }
}

fn decode<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, String> {
    let raw = params.ok_or_else(|| "missing params".to_owned())?;
    serde_json::from_str(raw.get()).map_err(|err| err.to_string())
}
