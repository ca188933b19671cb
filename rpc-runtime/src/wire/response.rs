//! Writing responses (server side) and reading them (client side).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

use super::Id;
use super::member::Member;
use crate::ErrorObject;

/// The response text carrying `result` for request `id`.
///
/// A result that fails to serialize (a map with non-string keys, a failing
/// `Serialize` impl) becomes `-32603`: the caller still gets an answer.
#[inline]
pub(crate) fn success<T: Serialize + ?Sized>(id: Id<'_>, result: &T) -> String {
    envelope(br#"{"jsonrpc":"2.0","result":"#, result, Some(id))
        .unwrap_or_else(|err| unserializable_result(id, &err))
}

#[cold]
fn unserializable_result(id: Id<'_>, err: &serde_json::Error) -> String {
    tracing::error!(%err, %id, "the result could not be serialized");
    failure(Some(id), &ErrorObject::internal_error())
}

/// The response text carrying `error`; the id is `null` when it could not be read.
pub(crate) fn failure(id: Option<Id<'_>>, error: &ErrorObject) -> String {
    // Cannot fail: an error object is strings and numbers plus raw JSON that
    // is valid by construction.
    envelope(br#"{"jsonrpc":"2.0","error":"#, error, id).unwrap_or_default()
}

/// `head` (`{"jsonrpc":"2.0","result":` or `…"error":`), then `value`, then the
/// id (`null` if `None`): the text serde_json writes for a struct of those
/// three members.
///
/// Only `value` goes through serde. The member names and `"2.0"` are
/// constant text that serde_json would scan for characters to escape on
/// every call, and the id is copied as the raw JSON it is.
#[inline]
fn envelope<T: Serialize + ?Sized>(
    head: &[u8],
    value: &T,
    id: Option<Id<'_>>,
) -> serde_json::Result<String> {
    let mut text = Vec::with_capacity(128);
    text.extend_from_slice(head);
    serde_json::to_writer(&mut text, value)?;
    text.extend_from_slice(br#","id":"#);
    text.extend_from_slice(id.map_or("null", |id| id.as_json()).as_bytes());
    text.push(b'}');
    // serde_json writes UTF-8 and the rest is `str`s: this check cannot fail.
    Ok(String::from_utf8(text).unwrap_or_default())
}

/// A response as a client reads it, borrowed from the response text.
///
/// ```
/// use typed_rpc::Response;
///
/// let response: Response = serde_json::from_str(r#"{"jsonrpc":"2.0","result":19,"id":1}"#).unwrap();
/// assert_eq!(response.id().unwrap().as_u64(), Some(1));
/// assert_eq!(response.result().unwrap().get(), "19");
///
/// let response: Response = serde_json::from_str(
///     r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#,
/// ).unwrap();
/// assert_eq!(response.result().unwrap_err().code(), -32601);
///
/// // The member a server does not use may be `null`, as many servers send it.
/// let response: Response = serde_json::from_str(r#"{"jsonrpc":"2.0","result":1,"error":null,"id":1}"#).unwrap();
/// assert_eq!(response.result().unwrap().get(), "1");
/// let response: Response = serde_json::from_str(
///     r#"{"jsonrpc":"2.0","result":null,"error":{"code":-32000,"message":"Busy"},"id":1}"#,
/// ).unwrap();
/// assert_eq!(response.result().unwrap_err().code(), -32000);
///
/// // Both, or neither, or another version, are not a response.
/// assert!(serde_json::from_str::<Response>(
///     r#"{"jsonrpc":"2.0","result":1,"error":{"code":-32000,"message":"Busy"},"id":1}"#,
/// ).is_err());
/// assert!(serde_json::from_str::<Response>(r#"{"jsonrpc":"2.0","error":null,"id":1}"#).is_err());
/// assert!(serde_json::from_str::<Response>(r#"{"result":1,"error":null,"id":1}"#).is_err());
/// ```
#[derive(Debug)]
pub struct Response<'a> {
    id: Option<Id<'a>>,
    outcome: Result<&'a RawValue, ErrorObject>,
}

impl<'a> Response<'a> {
    /// The id the server echoed; `None` when it was `null` (the server could
    /// not read the request's id).
    pub fn id(&self) -> Option<Id<'a>> {
        self.id
    }

    /// The `result` as raw JSON, or the `error` object.
    pub fn result(&self) -> Result<&'a RawValue, &ErrorObject> {
        self.outcome.as_ref().map(|raw| *raw)
    }

    /// Consumes the response into its result or error.
    pub fn into_result(self) -> Result<&'a RawValue, ErrorObject> {
        self.outcome
    }
}

// Used by the HTTP client's 1.0 mode.
#[cfg(feature = "http")]
impl<'de> Response<'de> {
    /// Reads a response of JSON-RPC 2.0 or 1.0: as the [`Deserialize`]
    /// impl does, except that the `jsonrpc` member may be anything or
    /// absent (1.0 has none).
    pub(crate) fn from_any_version(text: &'de str) -> serde_json::Result<Self> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let response = deserializer.deserialize_map(ResponseVisitor {
            version: VersionRule::Any,
        })?;
        deserializer.end()?;
        Ok(response)
    }

    /// The response as JSON-RPC 2.0 text, whichever version it was read as.
    pub(crate) fn to_2_0_text(&self) -> String {
        match (&self.outcome, self.id) {
            (Ok(result), Some(id)) => success(id, result),
            (Ok(result), None) => {
                envelope(br#"{"jsonrpc":"2.0","result":"#, result, None).unwrap_or_default()
            }
            (Err(error), id) => failure(id, error),
        }
    }
}

impl<'de> Deserialize<'de> for Response<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ResponseVisitor {
            version: VersionRule::Require2,
        })
    }
}

/// Which `jsonrpc` members a response may have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum VersionRule {
    /// `"2.0"`, and nothing else.
    Require2,
    /// Any, or none.
    #[cfg(feature = "http")]
    Any,
}

struct ResponseVisitor {
    version: VersionRule,
}

impl<'de> Visitor<'de> for ResponseVisitor {
    type Value = Response<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut version: Option<&'de RawValue> = None;
        let mut result: Option<&'de RawValue> = None;
        // `"error": null` is as good as no `error` member.
        let mut error: Option<ErrorObject> = None;
        let mut id: Option<&'de RawValue> = None;
        while let Some(key) = map.next_key::<Member>()? {
            match key {
                Member::Version => version = Some(map.next_value()?),
                Member::Result => result = Some(map.next_value()?),
                Member::Error => error = map.next_value()?,
                Member::Id => id = Some(map.next_value()?),
                Member::Method | Member::Params | Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if self.version == VersionRule::Require2
            && !version.is_some_and(super::request_object::is_version_2)
        {
            return Err(de::Error::custom("`jsonrpc` is not \"2.0\""));
        }
        let id = match id {
            Some(raw) => Id::new(raw)
                .ok_or_else(|| de::Error::custom("`id` is not a string, a number or null"))?,
            None => return Err(de::Error::missing_field("id")),
        };
        // Many servers send the member they do not use as `null` (JSON-RPC
        // 1.0 requires it): a `null` beside the other member is absence.
        let outcome = match (result, error) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => Err(error),
            (Some(result), Some(error)) if result.get() == "null" => Err(error),
            (Some(_), Some(_)) => {
                return Err(de::Error::custom(
                    "a response has both `result` and `error`",
                ));
            }
            (None, None) => {
                return Err(de::Error::custom(
                    "a response has neither `result` nor `error`",
                ));
            }
        };
        Ok(Response {
            id: Some(id).filter(|id| !id.is_null()),
            outcome,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The response as serde_json writes it from a struct.
    #[derive(Serialize)]
    struct Success<'a, T> {
        jsonrpc: &'static str,
        result: &'a T,
        id: Id<'a>,
    }

    /// The error response as serde_json writes it from a struct.
    #[derive(Serialize)]
    struct Failure<'a> {
        jsonrpc: &'static str,
        error: &'a ErrorObject,
        id: Option<Id<'a>>,
    }

    fn to_string<T: Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn the_envelope_is_what_serde_json_writes() {
        let error = ErrorObject::invalid_params().with_data(&"why");
        for raw in ["1", r#""a\"b""#, "null", "-0.5e3"] {
            let raw: &RawValue = serde_json::from_str(raw).unwrap();
            let id = Id::new(raw).unwrap();
            for result in [serde_json::json!(3), serde_json::json!({"k": ["é", null]})] {
                let expected = to_string(&Success {
                    jsonrpc: "2.0",
                    result: &result,
                    id,
                });
                assert_eq!(success(id, &result), expected);
            }
            let expected = to_string(&Failure {
                jsonrpc: "2.0",
                error: &error,
                id: Some(id),
            });
            assert_eq!(failure(Some(id), &error), expected);
        }
        let expected = to_string(&Failure {
            jsonrpc: "2.0",
            error: &error,
            id: None,
        });
        assert_eq!(failure(None, &error), expected);
    }
}
