//! How push notifications are delivered, and which webhooks are taken.
//!
//! A webhook URL is something a caller tells the server to send requests
//! to, so it is a server-side request forgery risk: a caller could aim it at
//! the server's own network (`http://10.0.0.5/admin`, a cloud metadata
//! address). [`PushSettings::allow_hosts`] limits webhooks to named hosts;
//! without it every host is taken, which suits loopback and trusted callers
//! only. The check is on the URL's host as written: a name in the list is
//! resolved when the request is sent, so list names whose DNS you control.

use std::time::Duration;

use axum::http::{HeaderValue, Uri};
use typed_rpc::transport::tls::ClientTlsConfig;

use crate::types::TaskPushNotificationConfig;

/// How many webhooks one task may have.
pub const MAX_CONFIGS_PER_TASK: usize = 10;

/// How push notifications are delivered, and to where.
///
/// Each webhook of each task has a queue of its own, served by one sender
/// in the background, in order; a task never waits for a webhook. When a
/// queue is full (a slow or dead webhook), the *oldest* queued update is
/// dropped for the new one, so a webhook that recovers gets the latest
/// state, the task's end included; it can read what it missed with
/// `GetTask`. A delivery is retried on a connection error, a timeout, `408`,
/// `429` and `5xx`, after a backoff that doubles each time, up to a bounded
/// number of attempts; then that update is given up. With a push store
/// that keeps an outbox (`SqlPushConfigStore`), each queued update is also
/// held there until it is delivered, given up or dropped, and another
/// process delivers it if this one dies first.
#[derive(Clone, Debug)]
pub struct PushSettings {
    pub(crate) attempts: u32,
    pub(crate) first_backoff: Duration,
    pub(crate) timeout: Duration,
    pub(crate) queue: usize,
    allowed_hosts: Option<Vec<String>>,
    /// Whom `https://` webhooks are trusted as; `None`: the system's roots.
    pub(crate) tls: Option<ClientTlsConfig>,
}

impl Default for PushSettings {
    /// 4 attempts, backoff from 250 ms, 10 s per attempt (the
    /// specification recommends 10 to 30), 64 updates queued per webhook,
    /// every host taken, `https://` webhooks trusted by the system's roots.
    fn default() -> Self {
        PushSettings {
            attempts: 4,
            first_backoff: Duration::from_millis(250),
            timeout: Duration::from_secs(10),
            queue: 64,
            allowed_hosts: None,
            tls: None,
        }
    }
}

impl PushSettings {
    /// At most `attempts` tries per update (at least one).
    pub fn attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// The wait before the first retry; each next one waits twice as long.
    pub fn backoff(mut self, first: Duration) -> Self {
        self.first_backoff = first;
        self
    }

    /// How long one attempt may take, answer included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many updates wait for one webhook before the oldest is dropped (at least one).
    pub fn queue(mut self, updates: usize) -> Self {
        self.queue = updates.max(1);
        self
    }

    /// Takes webhooks only on these hosts (names or addresses, as written
    /// in the URL, compared without case).
    pub fn allow_hosts<H: Into<String>>(mut self, hosts: impl IntoIterator<Item = H>) -> Self {
        let hosts = hosts.into_iter().map(|h| h.into().to_ascii_lowercase());
        self.allowed_hosts = Some(hosts.collect());
        self
    }

    /// Trusts the `https://` webhooks whose certificates `tls` vouches for
    /// (roots of your own: a private CA, a test's self-signed server)
    /// rather than those the system's trust store does.
    pub fn tls(mut self, tls: ClientTlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Why `config` is refused as a webhook, naming the member at fault.
    pub(crate) fn refusal(&self, config: &TaskPushNotificationConfig) -> Option<(&str, String)> {
        if let Err(reason) = self.webhook_uri(&config.url) {
            return Some(("url", reason));
        }
        let header_safe = |value: &str| HeaderValue::from_str(value).is_ok();
        if config.token.as_deref().is_some_and(|t| !header_safe(t)) {
            return Some(("token", "not a valid HTTP header value".into()));
        }
        if let Some(auth) = &config.authentication {
            let value = format!(
                "{} {}",
                auth.scheme,
                auth.credentials.as_deref().unwrap_or("")
            );
            if auth.scheme.is_empty() || !header_safe(&value) {
                return Some(("authentication", "not a valid Authorization header".into()));
            }
        }
        None
    }

    /// `url` as the URI deliveries go to, when it is a webhook we take.
    pub(crate) fn webhook_uri(&self, url: &str) -> Result<Uri, String> {
        let uri: Uri = url
            .parse()
            .map_err(|_| "not an absolute http URL".to_owned())?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err("only http:// and https:// webhooks are taken".into());
        }
        let host = uri
            .host()
            .ok_or("the URL has no host")?
            .to_ascii_lowercase();
        if let Some(allowed) = &self.allowed_hosts {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            if !allowed
                .iter()
                .any(|a| a.trim_start_matches('[').trim_end_matches(']') == host)
            {
                return Err(format!("the host {host} is not one webhooks may use"));
            }
        }
        Ok(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_urls_on_allowed_hosts_are_webhooks() {
        let any = PushSettings::default();
        assert!(any.webhook_uri("http://127.0.0.1:9/hook").is_ok());
        assert!(any.webhook_uri("https://example.com/hook").is_ok());
        for refused in [
            "ftp://example.com/x",
            "file:///etc/passwd",
            "/relative",
            "not a url",
        ] {
            assert!(any.webhook_uri(refused).is_err(), "{refused}");
        }
        let some = PushSettings::default().allow_hosts(["Hooks.Example.com", "[::1]"]);
        assert!(some.webhook_uri("https://hooks.example.com/a").is_ok());
        assert!(some.webhook_uri("http://[::1]:8080/a").is_ok());
        assert!(some.webhook_uri("http://169.254.169.254/latest").is_err());
    }
}
