//! The protocol's data, as MCP's JSON writes and reads it: every field the
//! specification names from 2024-11-05 to 2026-07-28, `_meta` carried
//! through wherever the specification puts it.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | `_meta`, ids, progress tokens, the fields every 2026-07-28 result carries |
//! | `lifecycle.rs` | `initialize`, `server/discover`, capabilities, implementations |
//! | `content.rs` | content blocks (text, image, audio, resource links, embedded resources) |
//! | `tools.rs` | tools, `tools/list`, `tools/call` |
//! | `resources.rs` | resources, templates, `resources/read`, subscriptions |
//! | `prompts.rs` | prompts, `prompts/get` |
//! | `host.rs` | what a server asks the host: sampling, elicitation, roots |
//! | `utilities.rs` | progress, cancellation, logging, completion, pagination |
//! | `input.rs` | the 2026-07-28 generation's input requests and responses |

mod content;
mod host;
mod input;
mod lifecycle;
mod prompts;
mod resources;
mod tools;
mod utilities;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use content::*;
pub use host::*;
pub use input::*;
pub use lifecycle::*;
pub use prompts::*;
pub use resources::*;
pub use tools::*;
pub use utilities::*;

/// A `_meta` object: metadata the protocol and its extensions attach to
/// requests, results and notifications, kept as sent.
pub type Meta = Map<String, Value>;

/// A JSON-RPC request id as MCP allows it: a string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    Text(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::Text(s) => f.write_str(s),
        }
    }
}

/// The token a request's `_meta.progressToken` carries; progress
/// notifications name it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    Text(String),
}

/// An opaque pagination position: the `nextCursor` of one page, sent back
/// as the `cursor` of the next.
pub type Cursor = String;

/// The `_meta` keys the specification reserves.
pub mod meta_keys {
    /// The protocol version of a 2026-07-28 request.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities, on each 2026-07-28 request.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version, on each 2026-07-28 request.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The least severe log level a 2026-07-28 request wants to hear of.
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's name and version, in each 2026-07-28 result.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The `subscriptions/listen` request a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The token progress notifications name.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// What a 2026-07-28 result says about itself: `complete`, or
/// `input_required` when the server asks the client for input first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The final result.
    Complete,
    /// An [`InputRequiredResult`]: retry with the input it asks for.
    InputRequired,
}

/// Who may keep a cacheable 2026-07-28 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Shared caches may keep it: it is the same for every caller.
    Public,
    /// Only the caller may keep it.
    Private,
}

/// The fields the 2026-07-28 generation adds to results: absent when the
/// server answers an earlier generation, which has none of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultFields {
    /// `complete` or `input_required`; a result without it is complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long, in milliseconds, the result may be served from a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl ResultFields {
    /// A complete result of the 2026-07-28 generation.
    pub fn complete() -> Self {
        ResultFields {
            result_type: Some(ResultType::Complete),
            ..ResultFields::default()
        }
    }

    /// A complete result that may be cached for `ttl_ms` by `scope`.
    pub fn cacheable(ttl_ms: u64, scope: CacheScope) -> Self {
        ResultFields {
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(ttl_ms),
            cache_scope: Some(scope),
        }
    }
}

/// The empty result of `ping`, `resources/subscribe` and the like (with
/// `resultType` in the 2026-07-28 generation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// The 2026-07-28 fields.
    #[serde(flatten)]
    pub fields: ResultFields,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens_keep_their_json_type() {
        let id: RequestId = serde_json::from_str("7").unwrap();
        assert_eq!(id, RequestId::Number(7));
        let id: RequestId = serde_json::from_str(r#""7""#).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), r#""7""#);
        let token: ProgressToken = serde_json::from_str(r#""abc""#).unwrap();
        assert_eq!(token, ProgressToken::Text("abc".into()));
    }

    #[test]
    fn result_fields_are_absent_unless_set() {
        assert_eq!(
            serde_json::to_string(&EmptyResult::default()).unwrap(),
            "{}"
        );
        let modern = EmptyResult {
            fields: ResultFields::cacheable(1000, CacheScope::Public),
            meta: None,
        };
        assert_eq!(
            serde_json::to_string(&modern).unwrap(),
            r#"{"resultType":"complete","ttlMs":1000,"cacheScope":"public"}"#
        );
    }
}
