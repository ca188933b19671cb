//! Who may call the endpoint: the `Host` a request names and the `Origin`
//! a browser sends are checked against the server's own names, so that a
//! web page cannot reach a local server through DNS rebinding.

use http::HeaderMap;
use http::header::{HOST, ORIGIN};

/// The names a server answers to.
#[derive(Clone, Debug, Default)]
pub(crate) struct Guard {
    /// The `Host` values allowed (`name:port`, lowercase); `None`: any.
    hosts: Option<Vec<String>>,
    /// The `Origin` values allowed besides those of the allowed hosts.
    origins: Vec<String>,
}

/// The names of the loopback interface.
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl Guard {
    /// The guard of a server listening on `addr`: on a loopback address,
    /// only loopback names (with its port) are allowed as `Host` and as the
    /// host of an `Origin`; elsewhere any `Host`, and no `Origin` but those
    /// allowed by [`allow_origins`](Guard::allow_origins).
    pub(crate) fn for_addr(addr: std::net::SocketAddr) -> Self {
        if !addr.ip().is_loopback() {
            return Guard::default();
        }
        let hosts = LOOPBACK_NAMES
            .iter()
            .map(|name| format!("{name}:{}", addr.port()))
            .collect();
        Guard {
            hosts: Some(hosts),
            origins: Vec::new(),
        }
    }

    /// Also allows these origins (`https://app.example.com`).
    pub(crate) fn allow_origins(&mut self, origins: impl IntoIterator<Item = String>) {
        self.origins.extend(
            origins
                .into_iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase()),
        );
    }

    /// Also allows these `Host` values (`mcp.example.com`, `mcp.example.com:8443`).
    pub(crate) fn allow_hosts(&mut self, hosts: impl IntoIterator<Item = String>) {
        let hosts = hosts.into_iter().map(|h| h.to_ascii_lowercase());
        match &mut self.hosts {
            Some(allowed) => allowed.extend(hosts),
            None => self.hosts = Some(hosts.collect()),
        }
    }

    /// Whether `headers` come from someone the server may answer; the
    /// reason when not.
    pub(crate) fn admits(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let host = headers
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_ascii_lowercase);
        if let Some(hosts) = &self.hosts {
            let Some(host) = &host else {
                return Err("the request names no Host");
            };
            if !hosts.iter().any(|allowed| {
                allowed == host || allowed.rsplit_once(':').map(|(name, _)| name) == Some(host)
            }) {
                return Err("the Host header is not one of this server's names");
            }
        }
        let Some(origin) = headers.get(ORIGIN) else {
            return Ok(());
        };
        let origin = origin
            .to_str()
            .map_err(|_| "the Origin header is not text")?
            .to_ascii_lowercase();
        if self.origins.contains(&origin) {
            return Ok(());
        }
        let origin_host = origin
            .split_once("://")
            .map(|(_, rest)| rest.trim_end_matches('/'));
        let same_host = match (&self.hosts, origin_host) {
            (Some(hosts), Some(origin_host)) => hosts.iter().any(|allowed| allowed == origin_host),
            _ => false,
        };
        match same_host {
            true => Ok(()),
            false => Err("the Origin is not allowed to call this server"),
        }
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(host).unwrap());
        if let Some(origin) = origin {
            headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    #[test]
    fn a_local_server_answers_only_to_local_names() {
        let guard = Guard::for_addr("127.0.0.1:3000".parse().unwrap());
        assert!(guard.admits(&headers("127.0.0.1:3000", None)).is_ok());
        assert!(
            guard
                .admits(&headers("localhost:3000", Some("http://localhost:3000")))
                .is_ok()
        );
        assert!(
            guard
                .admits(&headers(
                    "evil.example.com",
                    Some("http://evil.example.com")
                ))
                .is_err()
        );
        assert!(
            guard
                .admits(&headers("127.0.0.1:3000", Some("http://evil.example.com")))
                .is_err()
        );
        assert!(
            guard
                .admits(&headers("evil.example.com:3000", None))
                .is_err()
        );
    }

    #[test]
    fn other_origins_may_be_allowed() {
        let mut guard = Guard::for_addr("0.0.0.0:443".parse().unwrap());
        assert!(guard.admits(&headers("mcp.example.com", None)).is_ok());
        assert!(
            guard
                .admits(&headers("mcp.example.com", Some("https://app.example.com")))
                .is_err()
        );
        guard.allow_origins(["https://app.example.com".to_owned()]);
        assert!(
            guard
                .admits(&headers("mcp.example.com", Some("https://app.example.com")))
                .is_ok()
        );
    }
}
