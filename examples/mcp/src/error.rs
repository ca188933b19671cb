//! The errors MCP defines on top of JSON-RPC's, as error objects.

use serde_json::json;
use typed_rpc::ErrorObject;

use crate::ProtocolVersion;
use crate::types::ClientCapabilities;

/// The codes MCP reserves (`-32020..=-32099`) and the one legacy code it
/// still names.
pub mod code {
    /// HTTP headers that do not match the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a capability the client did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not one the server speaks (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// A resource that does not exist, in the classic generation (the
    /// 2026-07-28 generation answers `-32602`).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// `-32022`: `requested` is not a version the server speaks; `data` lists
/// those it does.
pub fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(&json!({ "supported": ProtocolVersion::all_names(), "requested": requested }))
}

/// `-32021`: the request needs `required`, which the client did not declare.
pub fn missing_capability(required: &ClientCapabilities) -> ErrorObject {
    ErrorObject::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
    )
    .with_data(&json!({ "requiredCapabilities": required }))
}

/// `-32020`: what an HTTP header says is not what the body says.
pub fn header_mismatch(detail: &str) -> ErrorObject {
    ErrorObject::new(code::HEADER_MISMATCH, format!("Header mismatch: {detail}"))
}

/// `-32602`: a 2026-07-28 request without the `_meta` fields every
/// request must carry.
pub fn missing_meta(field: &str) -> ErrorObject {
    ErrorObject::new(
        typed_rpc::code::INVALID_PARAMS,
        format!("Invalid params: `_meta` lacks `{field}`"),
    )
    .with_data(&json!({ "param": "_meta", "reason": format!("missing `{field}`") }))
}

/// `-32600`: a classic-generation request before `initialize`.
pub fn not_initialized(method: &str) -> ErrorObject {
    ErrorObject::new(
        typed_rpc::code::INVALID_REQUEST,
        format!(
            "`{method}` before `initialize`: only `ping` may come before the session is initialized"
        ),
    )
}

/// `-32602`: no tool, prompt or template by that name.
pub fn unknown(kind: &str, name: &str) -> ErrorObject {
    ErrorObject::new(
        typed_rpc::code::INVALID_PARAMS,
        format!("Unknown {kind}: {name}"),
    )
    .with_data(&json!({ "param": "name", "reason": format!("no {kind} named `{name}`") }))
}

/// A resource that does not exist: `-32002` in the classic generation,
/// `-32602` in the 2026-07-28 generation; `data.uri` names it either way.
pub fn resource_not_found(uri: &str, stateless: bool) -> ErrorObject {
    let code = match stateless {
        true => typed_rpc::code::INVALID_PARAMS,
        false => code::RESOURCE_NOT_FOUND,
    };
    ErrorObject::new(code, format!("Resource not found: {uri}")).with_data(&json!({ "uri": uri }))
}
