//! The settings of an [`HttpClient`]: its URL, headers, timeout, retries
//! and limits, checked when it is built.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use http::Uri;
use http::header::{self, HeaderMap, HeaderValue};
use hyper_util::client::legacy;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use super::connector::connector;
use super::{DEFAULT_MAX_RESPONSE_SIZE, HttpClient, Inner, request_header};
use crate::client::RetryPolicy;
use crate::transport::DEFAULT_CALL_TIMEOUT;

/// The schemes the client speaks, as a pattern.
#[cfg(not(feature = "tls"))]
macro_rules! SCHEMES {
    () => {
        "http"
    };
}
#[cfg(feature = "tls")]
macro_rules! SCHEMES {
    () => {
        "http" | "https"
    };
}

/// The schemes the client speaks, as an error says them.
#[cfg(not(feature = "tls"))]
const SUPPORTED: &str = "only http:// is supported (https:// with the `tls` feature)";
#[cfg(feature = "tls")]
const SUPPORTED: &str = "only http:// and https:// are supported";

fn parse_url(url: &str) -> Result<Uri, HttpConfigError> {
    let uri: Uri = url
        .parse()
        .map_err(|err| HttpConfigError::new(format!("invalid URL `{url}`: {err}")))?;
    match uri.scheme_str() {
        Some(SCHEMES!()) if uri.host().is_some() => Ok(uri),
        Some(SCHEMES!()) => Err(HttpConfigError::new(format!("no host in URL `{url}`"))),
        Some(scheme) => Err(HttpConfigError::new(format!(
            "unsupported scheme `{scheme}` in `{url}`: {SUPPORTED}"
        ))),
        None => Err(HttpConfigError::new(format!(
            "invalid URL `{url}`: expected http://host[:port][/path]"
        ))),
    }
}

/// Settings of an [`HttpClient`]; see [`HttpClient::builder`].
///
/// ```
/// use std::time::Duration;
/// use typed_rpc::client::RetryPolicy;
/// use typed_rpc::transport::http::HttpClient;
///
/// let client = HttpClient::builder("http://127.0.0.1:8545")
///     .header("x-api-key", "k3y")
///     .timeout(Duration::from_secs(5))
///     .retry(RetryPolicy::new(4).base_backoff(Duration::from_millis(50)))
///     .build()
///     .unwrap();
/// assert_eq!(client.url().port_u16(), Some(8545));
///
/// let err = HttpClient::builder("http://127.0.0.1:8545").header("bad name", "x").build().unwrap_err();
/// assert!(err.to_string().contains("bad name"));
/// ```
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Debug)]
pub struct HttpClientBuilder {
    uri: Result<Uri, HttpConfigError>,
    headers: HeaderMap,
    error: Option<HttpConfigError>,
    timeout: Option<Duration>,
    retry: Option<RetryPolicy>,
    max_response_size: usize,
    version_1: bool,
    #[cfg(feature = "tls")]
    tls: Option<crate::transport::tls::ClientTlsConfig>,
}

impl HttpClientBuilder {
    /// A builder of a client of `url`, with the defaults of [`HttpClient::new`].
    pub(super) fn new(url: &str) -> Self {
        HttpClientBuilder {
            uri: parse_url(url),
            headers: HeaderMap::new(),
            error: None,
            timeout: Some(DEFAULT_CALL_TIMEOUT),
            retry: None,
            max_response_size: DEFAULT_MAX_RESPONSE_SIZE,
            version_1: false,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// Adds a header to every request (`authorization`, an API key, A2A's
    /// `A2A-Version`, ...). Setting a header the client sends by default
    /// (`content-type`, `accept`, `user-agent`) replaces it; setting one
    /// twice sends both values. `authorization` and `cookie` values are
    /// marked sensitive.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match request_header(name, value) {
            Ok((name, value)) => {
                self.headers.append(name, value);
                self
            }
            Err(message) => self.fail(message),
        }
    }

    /// Adds every header of `headers`, as [`header`](Self::header) does.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        for (name, value) in &headers {
            self.headers.append(name, value.clone());
        }
        self
    }

    /// Fails a call that takes longer than `timeout` (each attempt, when
    /// retries are on) with a [`Timeout`](TransportErrorKind::Timeout)
    /// transport error; `None` waits as long as the server takes. By
    /// default [`DEFAULT_CALL_TIMEOUT`] (30 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use typed_rpc::transport::{DEFAULT_CALL_TIMEOUT, HttpClient};
    ///
    /// let default = HttpClient::new("http://127.0.0.1:3000").unwrap();
    /// assert_eq!(default.timeout(), Some(DEFAULT_CALL_TIMEOUT));
    /// let patient = HttpClient::builder("http://127.0.0.1:3000").timeout(None).build().unwrap();
    /// assert_eq!(patient.timeout(), None);
    /// let hasty = HttpClient::builder("http://127.0.0.1:3000")
    ///     .timeout(Duration::from_millis(100))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(hasty.timeout(), Some(Duration::from_millis(100)));
    /// ```
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = timeout.into();
        self
    }

    /// Retries the calls marked idempotent as `policy` says (see
    /// [`RetryPolicy`] for when). No retries by default; batches are never
    /// retried.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Refuses replies larger than `bytes` (default 64 MiB) with a
    /// [`Refused`](TransportErrorKind::Refused) transport error.
    pub fn max_response_size(mut self, bytes: usize) -> Self {
        self.max_response_size = bytes;
        self
    }

    /// Speaks JSON-RPC 1.0, to a server that does not speak 2.0 (Bitcoin
    /// Core's legacy interface, older services).
    ///
    /// Requests carry `"jsonrpc": "1.0"` (which 1.0 servers that know no
    /// such member ignore), always an `id` (`null` for a notification) and
    /// always `params` (`[]` when a method has none; 1.0 knows only
    /// positional params, so give such a server's methods
    /// `param_style = "positional"`). Replies are read with or without a
    /// `jsonrpc` member, with `result` and `error` both present and one of
    /// them `null`. JSON-RPC 1.0 has no batches: sending one fails with a
    /// [`Refused`](TransportErrorKind::Refused) transport error without
    /// reaching the server. A 2.0 client ([`HttpClient::new`]) reads only 2.0
    /// replies.
    ///
    /// ```
    /// use typed_rpc::transport::http::HttpClient;
    ///
    /// let legacy = HttpClient::builder("http://127.0.0.1:8332/").jsonrpc_1_0().build().unwrap();
    /// # let _ = legacy;
    /// ```
    pub fn jsonrpc_1_0(mut self) -> Self {
        self.version_1 = true;
        self
    }

    /// Trusts the servers `tls` trusts over `https://`, rather than the
    /// system's roots (cargo feature `tls`).
    ///
    /// ```
    /// use typed_rpc::transport::http::HttpClient;
    /// use typed_rpc::transport::tls::ClientTlsConfig;
    ///
    /// let private = ClientTlsConfig::new(); // .add_root_pem_file("ca.pem")?
    /// let client = HttpClient::builder("https://127.0.0.1:8443/").tls(private).build().unwrap();
    /// assert_eq!(client.url().scheme_str(), Some("https"));
    /// ```
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: crate::transport::tls::ClientTlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    fn fail(mut self, message: String) -> Self {
        self.error.get_or_insert(HttpConfigError::new(message));
        self
    }

    /// The client, or the first mistake in its settings (a bad URL, a bad header).
    pub fn build(self) -> Result<HttpClient, HttpConfigError> {
        let uri = self.uri?;
        if let Some(error) = self.error {
            return Err(error);
        }
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        headers.insert(
            header::USER_AGENT,
            HeaderValue::from_static(concat!("typed-rpc/", env!("CARGO_PKG_VERSION"))),
        );
        // The first value of each name replaces a default, the next ones add to it.
        headers.extend(self.headers);
        #[cfg(not(feature = "tls"))]
        let connector = connector(&uri)?;
        #[cfg(feature = "tls")]
        let connector = connector(&uri, self.tls)?;
        let client = legacy::Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .build(connector);
        Ok(HttpClient {
            inner: Arc::new(Inner {
                client,
                uri,
                headers,
                timeout: self.timeout,
                retry: self.retry,
                max_response_size: self.max_response_size,
                next_id: AtomicU64::new(1),
                version_1: self.version_1,
            }),
        })
    }
}

/// A mistake in the settings of an [`HttpClient`]: a bad URL or header.
///
/// ```
/// use typed_rpc::transport::http::HttpClient;
///
/// let err = HttpClient::new("ftp://127.0.0.1/").unwrap_err();
/// assert!(err.to_string().starts_with("unsupported scheme `ftp` in `ftp://127.0.0.1/`: only http://"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpConfigError {
    message: String,
}

impl HttpConfigError {
    pub(super) fn new(message: String) -> Self {
        HttpConfigError { message }
    }
}

impl fmt::Display for HttpConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HttpConfigError {}
