//! Origins as browsers write them (`scheme://host[:port]`): checking the
//! ones a user configures, and telling whether a request's `Origin` names
//! the host it was sent to.

use http::{HeaderMap, HeaderValue, Uri, header};

use super::CorsError;

/// `origin` as a browser serializes it in an `Origin` header: scheme and
/// host in lower case, the scheme's default port left out. A request's
/// `Origin` is then matched byte for byte.
pub(super) fn normalize(origin: &str) -> Result<HeaderValue, CorsError> {
    let invalid = |reason| CorsError::new(origin, reason);
    let (scheme, authority) = origin.split_once("://").ok_or_else(|| {
        invalid("is not an origin: it needs a scheme, as in `https://app.example.com`")
    })?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme.is_empty()
        || !scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return Err(invalid("is not an origin: its scheme is not a scheme"));
    }
    if authority.contains(['/', '?', '#']) {
        return Err(invalid(
            "is not an origin: an origin has no path, query or fragment (no trailing `/` either)",
        ));
    }
    if authority.contains('@') {
        return Err(invalid(
            "is not an origin: an origin has no user information",
        ));
    }
    let (host, port) = split_authority(authority)
        .ok_or_else(|| invalid("is not an origin: its host or port is malformed"))?;
    if host.is_empty() {
        return Err(invalid("is not an origin: it has no host"));
    }
    let host = host.to_ascii_lowercase();
    let text = match port {
        Some(port) if Some(port) != default_port(&scheme) => format!("{scheme}://{host}:{port}"),
        _ => format!("{scheme}://{host}"),
    };
    HeaderValue::from_str(&text)
        .map_err(|_| invalid("is not an origin: it holds characters a header cannot carry"))
}

/// Whether the request's `origin` is the origin of the server it was sent
/// to: the same host and port as its `Host` header (or, where there is
/// none, as HTTP/2 has it, the authority of its URI). The scheme cannot be
/// compared: behind a TLS-terminating proxy the server speaks plain HTTP
/// to a page served over HTTPS. A `Host` without a port stands for the
/// default port of the origin's scheme.
pub(crate) fn is_same_origin(origin: &HeaderValue, uri: &Uri, headers: &HeaderMap) -> bool {
    let host = match headers.get(header::HOST) {
        Some(host) => host.to_str().ok(),
        None => uri.authority().map(|authority| authority.as_str()),
    };
    let (Some(host), Ok(origin)) = (host, origin.to_str()) else {
        return false;
    };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default = default_port(scheme);
    match (split_authority(authority), split_authority(host)) {
        (Some((origin_host, origin_port)), Some((host, host_port))) => {
            origin_host.eq_ignore_ascii_case(host)
                && origin_port.or(default).is_some()
                && origin_port.or(default) == host_port.or(default)
        }
        _ => false,
    }
}

/// `host[:port]` (a bracketed IPv6 address included) split in two; `None`
/// for a port that is not a number.
fn split_authority(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (address, after) = rest.split_once(']')?;
        let host = &authority[..address.len() + 2];
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.contains(':') && !host.starts_with('[') {
        return None;
    }
    match port {
        None => Some((host, None)),
        Some(port) => Some((host, Some(port.parse().ok()?))),
    }
}

/// The port a URL of `scheme` means when it names none.
fn default_port(scheme: &str) -> Option<u16> {
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_origins_are_written_as_browsers_write_them() {
        let normal = |origin| normalize(origin).map(|value| value.to_str().unwrap().to_owned());
        assert_eq!(
            normal("https://App.Example.com").unwrap(),
            "https://app.example.com"
        );
        assert_eq!(
            normal("HTTPS://app.example.com:443").unwrap(),
            "https://app.example.com"
        );
        assert_eq!(
            normal("http://localhost:5173").unwrap(),
            "http://localhost:5173"
        );
        assert_eq!(normal("http://[::1]:8080").unwrap(), "http://[::1]:8080");
        assert_eq!(normal("http://127.0.0.1:80").unwrap(), "http://127.0.0.1");
        for bad in [
            "app.example.com",
            "https://app.example.com/",
            "https://app.example.com/path",
            "https://user@app.example.com",
            "https://app.example.com:http",
            "https://",
            "null",
            "*",
        ] {
            assert!(normal(bad).is_err(), "{bad}");
        }
        let err = normalize("https://app.example.com/").unwrap_err();
        assert!(err.to_string().contains("trailing `/`"), "{err}");
    }

    #[test]
    fn same_origin_is_the_host_the_request_was_sent_to() {
        let same = |origin: &'static str, host: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static(host));
            is_same_origin(
                &HeaderValue::from_static(origin),
                &Uri::from_static("/"),
                &headers,
            )
        };
        assert!(same("http://127.0.0.1:3000", "127.0.0.1:3000"));
        assert!(same("http://LOCALHOST:3000", "localhost:3000"));
        assert!(same("https://api.example.com", "api.example.com"));
        assert!(same("https://api.example.com", "api.example.com:443"));
        assert!(same("http://[::1]:3000", "[::1]:3000"));
        assert!(!same("http://127.0.0.1:3001", "127.0.0.1:3000"));
        assert!(!same("http://evil.example", "127.0.0.1:3000"));
        assert!(!same("http://api.example.com", "api.example.com:443"));
        assert!(!same("null", "127.0.0.1:3000"));
        assert!(!same("file://", "127.0.0.1:3000"));
        // Without a Host header, the URI's authority (HTTP/2).
        let origin = HeaderValue::from_static("http://127.0.0.1:3000");
        let uri = Uri::from_static("http://127.0.0.1:3000/rpc");
        assert!(is_same_origin(&origin, &uri, &HeaderMap::new()));
        assert!(!is_same_origin(
            &origin,
            &Uri::from_static("/"),
            &HeaderMap::new()
        ));
    }
}
