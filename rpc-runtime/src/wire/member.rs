//! The member names of a JSON-RPC object, read as serde reads a key: the
//! one list the request and the response readers share.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A member of a request or response object; any other name is `Other`.
pub(super) enum Member {
    Version,
    Method,
    Params,
    Id,
    Result,
    Error,
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
            "method" => Member::Method,
            "params" => Member::Params,
            "id" => Member::Id,
            "result" => Member::Result,
            "error" => Member::Error,
            _ => Member::Other,
        })
    }
}
