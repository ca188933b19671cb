//! What a `POST` says of itself: the message it carries, read lightly
//! (kind, method, id, the fields headers mirror), and the 2026-07-28
//! generation's headers checked against it.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderMap;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use typed_rpc::ErrorObject;

use crate::error;

/// The header naming the protocol version.
pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header naming the classic session.
pub(crate) const SESSION_ID: &str = "mcp-session-id";
/// The header mirroring the method (2026-07-28).
const METHOD: &str = "mcp-method";
/// The header mirroring the tool, prompt or resource named (2026-07-28).
const NAME: &str = "mcp-name";

/// One message, as far as routing it needs.
#[derive(Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(borrow, default)]
    pub(crate) method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(crate) params: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

impl Message<'_> {
    /// Whether it is a response (to one of the server's requests).
    pub(crate) fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }

    /// Whether it is a request (it has a method and an id).
    pub(crate) fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    pub(crate) fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }
}

/// The fields of a 2026-07-28 request its headers mirror.
#[derive(Deserialize)]
struct Mirrored<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MirroredMeta<'a>>,
}

#[derive(Deserialize)]
struct MirroredMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<Cow<'a, str>>,
}

/// A header's value as text, the Base64 sentinel form
/// (`=?base64?...?=`) decoded; `Err` when it is not valid.
pub(crate) fn header_text<'a>(
    headers: &'a HeaderMap,
    name: &str,
) -> Result<Option<Cow<'a, str>>, ErrorObject> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| {
        error::header_mismatch(&format!("{name} holds characters a header may not"))
    })?;
    let Some(encoded) = text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(Some(Cow::Borrowed(text.trim())));
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|_| error::header_mismatch(&format!("{name} is not valid Base64")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| error::header_mismatch(&format!("{name} is not UTF-8")))?;
    Ok(Some(Cow::Owned(text)))
}

/// Checks that a 2026-07-28 request's headers say what its body says:
/// `MCP-Protocol-Version`, `Mcp-Method` and, for the methods that name
/// something, `Mcp-Name` (all required).
pub(crate) fn check_mirrored(
    headers: &HeaderMap,
    message: &Message<'_>,
) -> Result<(), ErrorObject> {
    let mirrored: Mirrored<'_> = message
        .params
        .and_then(|params| serde_json::from_str(params.get()).ok())
        .unwrap_or(Mirrored {
            name: None,
            uri: None,
            meta: None,
        });
    let body_version = mirrored.meta.and_then(|meta| meta.version);
    let mismatch = |header: &str, told: &str, body: &str| {
        error::header_mismatch(&format!(
            "{header} header value '{told}' does not match body value '{body}'"
        ))
    };
    match header_text(headers, PROTOCOL_VERSION)? {
        None => {
            return Err(error::header_mismatch(
                "the MCP-Protocol-Version header is missing",
            ));
        }
        Some(told) if Some(&told) != body_version.as_ref() => {
            return Err(mismatch(
                "MCP-Protocol-Version",
                &told,
                body_version.as_deref().unwrap_or(""),
            ));
        }
        Some(_) => {}
    }
    match header_text(headers, METHOD)? {
        None => return Err(error::header_mismatch("the Mcp-Method header is missing")),
        Some(told) if told != message.method() => {
            return Err(mismatch("Mcp-Method", &told, message.method()));
        }
        Some(_) => {}
    }
    let named = match message.method() {
        "tools/call" | "prompts/get" => mirrored.name,
        "resources/read" => mirrored.uri,
        _ => return Ok(()),
    };
    let named = named.unwrap_or_default();
    match header_text(headers, NAME)? {
        None => Err(error::header_mismatch("the Mcp-Name header is missing")),
        Some(told) if told != named => Err(mismatch("Mcp-Name", &told, &named)),
        Some(_) => Ok(()),
    }
}

/// Whether `Accept` allows JSON, and event streams; a missing header
/// allows both.
pub(crate) fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let Some(accept) = headers
        .get(http::header::ACCEPT)
        .and_then(|a| a.to_str().ok())
    else {
        return (true, true);
    };
    let mut json = false;
    let mut events = false;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| matches!(p.trim().split_once('='), Some(("q", q)) if q.trim().parse::<f32>() == Ok(0.0)));
        if refused {
            continue;
        }
        match media.as_str() {
            "*/*" => (json, events) = (true, true),
            "application/*" | "application/json" => json = true,
            "text/*" | "text/event-stream" => events = true,
            _ => {}
        }
    }
    (json, events)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn message(text: &str) -> Message<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn mirrored_headers_must_match_the_body() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let mut headers = HeaderMap::new();
        headers.insert(PROTOCOL_VERSION, HeaderValue::from_static("2026-07-28"));
        headers.insert(METHOD, HeaderValue::from_static("tools/call"));
        assert!(
            check_mirrored(&headers, &message(body))
                .unwrap_err()
                .message()
                .contains("Mcp-Name")
        );
        headers.insert(NAME, HeaderValue::from_static("=?base64?YWRk?="));
        assert!(check_mirrored(&headers, &message(body)).is_ok());
        headers.insert(NAME, HeaderValue::from_static("sub"));
        let err = check_mirrored(&headers, &message(body)).unwrap_err();
        assert_eq!(err.code(), -32020);
        assert!(
            err.message()
                .contains("'sub' does not match body value 'add'")
        );
    }

    #[test]
    fn accept_lists_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(accepts(&headers), (true, true));
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert_eq!(accepts(&headers), (true, true));
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0, application/json"),
        );
        assert_eq!(accepts(&headers), (true, false));
    }
}
