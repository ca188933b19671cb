//! Writing responses (server side) and reading them (client side).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::fmt;

use super::Id;
use crate::ErrorObject;

const VERSION: &str = "2.0";

#[derive(Serialize)]
struct Success<'a, T: ?Sized> {
    jsonrpc: &'static str,
    result: &'a T,
    id: Id<'a>,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    error: &'a ErrorObject,
    id: Option<Id<'a>>,
}

/// The response text carrying `result` for request `id`.
///
/// A result that fails to serialize (a map with non-string keys, a failing
/// `Serialize` impl) becomes `-32603`: the caller still gets an answer.
#[inline]
pub(crate) fn success<T: Serialize + ?Sized>(id: Id<'_>, result: &T) -> String {
    let response = Success {
        jsonrpc: VERSION,
        result,
        id,
    };
    serde_json::to_string(&response).unwrap_or_else(|err| unserializable_result(id, &err))
}

#[cold]
fn unserializable_result(id: Id<'_>, err: &serde_json::Error) -> String {
    tracing::error!(%err, %id, "the result could not be serialized");
    failure(Some(id), &ErrorObject::internal_error())
}

/// The response text carrying `error`; the id is `null` when it could not be read.
pub(crate) fn failure(id: Option<Id<'_>>, error: &ErrorObject) -> String {
    let response = Failure {
        jsonrpc: VERSION,
        error,
        id,
    };
    // Cannot fail: an error object is strings and numbers plus raw JSON that
    // is valid by construction.
    serde_json::to_string(&response).unwrap_or_default()
}

/// A response as a client reads it, borrowed from the response text.
///
/// ```
/// use rpc_runtime::Response;
///
/// let response: Response = serde_json::from_str(r#"{"jsonrpc":"2.0","result":19,"id":1}"#).unwrap();
/// assert_eq!(response.id().unwrap().as_u64(), Some(1));
/// assert_eq!(response.result().unwrap().get(), "19");
///
/// let response: Response = serde_json::from_str(
///     r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#,
/// ).unwrap();
/// assert_eq!(response.result().unwrap_err().code(), -32601);
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

impl<'de> Deserialize<'de> for Response<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ResponseVisitor)
    }
}

struct ResponseVisitor;

impl<'de> Visitor<'de> for ResponseVisitor {
    type Value = Response<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC 2.0 response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut version: Option<&'de RawValue> = None;
        let mut result: Option<&'de RawValue> = None;
        let mut error: Option<ErrorObject> = None;
        let mut id: Option<&'de RawValue> = None;
        while let Some(key) = map.next_key::<Member>()? {
            match key {
                Member::Version => version = Some(map.next_value()?),
                Member::Result => result = Some(map.next_value()?),
                Member::Error => error = Some(map.next_value()?),
                Member::Id => id = Some(map.next_value()?),
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !version.is_some_and(super::request::is_version_2) {
            return Err(de::Error::custom("`jsonrpc` is not \"2.0\""));
        }
        let id = match id {
            Some(raw) => Id::new(raw)
                .ok_or_else(|| de::Error::custom("`id` is not a string, a number or null"))?,
            None => return Err(de::Error::missing_field("id")),
        };
        let outcome = match (result, error) {
            (Some(result), None) => Ok(result),
            (None, Some(error)) => Err(error),
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

/// A member name of a response object.
enum Member {
    Version,
    Result,
    Error,
    Id,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

struct MemberVisitor;

impl Visitor<'_> for MemberVisitor {
    type Value = Member;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
        Ok(match name {
            "jsonrpc" => Member::Version,
            "result" => Member::Result,
            "error" => Member::Error,
            "id" => Member::Id,
            _ => Member::Other,
        })
    }
}
