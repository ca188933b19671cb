//! What a request's headers declare: JSON, an encoding, a WebSocket handshake.

use http::{HeaderMap, HeaderValue, header};

/// Whether the request is a WebSocket handshake.
pub(super) fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    let has_token = |name, token: &str| {
        headers.get_all(name).iter().any(|value| {
            value.to_str().is_ok_and(|value| {
                value
                    .split(',')
                    .any(|item| item.trim().eq_ignore_ascii_case(token))
            })
        })
    };
    has_token(header::CONNECTION, "upgrade") && has_token(header::UPGRADE, "websocket")
}

/// Whether the body is declared JSON in UTF-8 (or not declared at all) and
/// comes without a `Content-Encoding` (compression), which the server does
/// not undo. One pass over the headers, no allocation: this runs on every
/// request.
pub(super) fn is_json_unencoded(headers: &HeaderMap) -> bool {
    let mut content_type = None;
    for (name, value) in headers {
        if name == header::CONTENT_TYPE {
            content_type.get_or_insert(value);
        } else if name == header::CONTENT_ENCODING
            && !value.as_bytes().eq_ignore_ascii_case(b"identity")
        {
            return false;
        }
    }
    content_type.is_none_or(is_json)
}

/// Whether a `Content-Type` declares JSON in UTF-8.
fn is_json(value: &HeaderValue) -> bool {
    let value = value.as_bytes();
    // What nearly every client sends.
    if value.eq_ignore_ascii_case(b"application/json") {
        return true;
    }
    let Ok(value) = std::str::from_utf8(value) else {
        return false;
    };
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return essence.is_empty();
    };
    let is = |name: &str| subtype.eq_ignore_ascii_case(name);
    let structured_json = subtype.len() >= 5
        && subtype.is_char_boundary(subtype.len() - 5)
        && subtype[subtype.len() - 5..].eq_ignore_ascii_case("+json");
    let json = kind.eq_ignore_ascii_case("application")
        && (is("json") || is("json-rpc") || is("jsonrequest") || structured_json);
    json && parts.all(|param| match param.split_once('=') {
        Some((name, value)) if name.trim().eq_ignore_ascii_case("charset") => {
            value.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    header::HeaderName::from_static(name),
                    HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    #[test]
    fn json_content_types() {
        for accepted in [
            "application/json",
            "APPLICATION/JSON",
            "application/json; charset=utf-8",
            "Application/JSON;charset=\"UTF-8\"",
            "application/json-rpc",
            "application/jsonrequest",
            "application/vnd.api+json",
            "application/VND.API+JSON",
            "",
        ] {
            assert!(
                is_json_unencoded(&headers(&[("content-type", accepted)])),
                "{accepted}"
            );
        }
        assert!(is_json_unencoded(&HeaderMap::new()), "missing is lenient");
        for refused in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=iso-8859-1",
            "text/json",
            "json",
            "application/json+",
        ] {
            assert!(
                !is_json_unencoded(&headers(&[("content-type", refused)])),
                "{refused}"
            );
        }
        // The first Content-Type counts, as `HeaderMap::get` would have it.
        assert!(is_json_unencoded(&headers(&[
            ("content-type", "application/json"),
            ("content-type", "text/plain"),
        ])));
    }

    #[test]
    fn websocket_handshakes() {
        assert!(is_websocket_upgrade(&headers(&[
            ("connection", "keep-alive, Upgrade"),
            ("upgrade", "websocket"),
        ])));
        assert!(!is_websocket_upgrade(&headers(&[("upgrade", "websocket")])));
        assert!(!is_websocket_upgrade(&headers(&[
            ("connection", "upgrade"),
            ("upgrade", "h2c"),
        ])));
    }

    #[test]
    fn encodings() {
        let json = ("content-type", "application/json");
        assert!(is_json_unencoded(&headers(&[json])));
        assert!(is_json_unencoded(&headers(&[
            ("content-encoding", "identity"),
            json
        ])));
        assert!(is_json_unencoded(&headers(&[(
            "content-encoding",
            "IDENTITY"
        )])));
        assert!(!is_json_unencoded(&headers(&[
            json,
            ("content-encoding", "gzip")
        ])));
        assert!(!is_json_unencoded(&headers(&[
            ("content-encoding", "identity"),
            ("content-encoding", "br"),
        ])));
    }
}
