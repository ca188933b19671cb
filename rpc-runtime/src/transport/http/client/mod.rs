//! The HTTP client: one `POST` per call on pooled keep-alive connections.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

mod builder;
mod connector;
mod json_rpc_1;

pub use builder::{HttpClientBuilder, HttpConfigError};

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy;

use super::read_body::{BodyError, read_whole};
use super::sse::client_events;
use crate::Response;
use crate::client::{
    Batch, BatchResponse, ClientError, DecodeError, HttpError, OutgoingRequest, RawItems,
    RetryPolicy, Transport, TransportError, TransportErrorKind,
};
use connector::Connector;

/// The most of an error response's body kept in [`HttpError::body`].
const ERROR_BODY_LIMIT: usize = 1024;

/// The default limit on a reply's size.
const DEFAULT_MAX_RESPONSE_SIZE: usize = 64 * 1024 * 1024;

/// A JSON-RPC client over HTTP: each call is one `POST` to the server's URL,
/// on a pool of kept-alive connections.
///
/// Cheap to clone: clones share the pool and the settings. Use it as the
/// transport of a generated client (`FooClient::new(http)`) or untyped with
/// [`ClientExt`](crate::client::ClientExt). Failures come in the layers of
/// [`ClientError`]:
///
/// - [`Transport`](ClientError::Transport): the connection could not be made
///   ([`Connect`](TransportErrorKind::Connect)), was lost before the reply
///   ([`Closed`](TransportErrorKind::Closed)), the call took longer than the
///   [`timeout`](HttpClientBuilder::timeout)
///   ([`Timeout`](TransportErrorKind::Timeout)), or the reply was over
///   [`max_response_size`](HttpClientBuilder::max_response_size)
///   ([`Refused`](TransportErrorKind::Refused));
/// - [`Http`](ClientError::Http): a status other than 2xx, with the
///   `Retry-After` delay (seconds or an HTTP date) and the start of the body;
/// - [`Rpc`](ClientError::Rpc): the server's JSON-RPC error object;
/// - [`Decode`](ClientError::Decode): the reply was not a JSON-RPC response,
///   answered another id than the request's, or its result did not fit.
///
/// `http://`, and with the `tls` feature `https://` (trusting the system's
/// roots, or those of [`tls`](HttpClientBuilder::tls)), over HTTP/2 when
/// the server chooses it by ALPN and HTTP/1.1 otherwise. Batches are sent
/// as one `POST`.
///
/// ```no_run
/// use std::time::Duration;
/// use typed_rpc::client::{ClientExt, RetryPolicy};
/// use typed_rpc::transport::http::HttpClient;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let client = HttpClient::builder("http://127.0.0.1:3000/rpc")
///     .header("authorization", "Bearer s3cret")
///     .timeout(Duration::from_secs(10))
///     .retry(RetryPolicy::new(3))
///     .build()?;
/// let height: u64 = client.call("eth_blockNumber", None).await?;
/// # let _ = height; Ok(()) }
/// ```
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
}

struct Inner {
    client: legacy::Client<Connector, Full<Bytes>>,
    uri: Uri,
    headers: HeaderMap,
    timeout: Option<Duration>,
    retry: Option<RetryPolicy>,
    max_response_size: usize,
    next_id: AtomicU64,
    /// Speaks JSON-RPC 1.0 rather than 2.0.
    version_1: bool,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        // Header values may be credentials: their names only.
        f.debug_struct("HttpClient")
            .field("uri", &inner.uri)
            .field("headers", &inner.headers.keys().collect::<Vec<_>>())
            .field("timeout", &inner.timeout)
            .field("retry", &inner.retry)
            .field("max_response_size", &inner.max_response_size)
            .field("version_1", &inner.version_1)
            .finish()
    }
}

impl HttpClient {
    /// A client of the server at `url` (`http://host:port/path`), with
    /// default settings: calls time out after
    /// [`DEFAULT_CALL_TIMEOUT`](crate::transport::DEFAULT_CALL_TIMEOUT)
    /// (30 s), no retries.
    ///
    /// ```
    /// use typed_rpc::transport::http::HttpClient;
    ///
    /// assert!(HttpClient::new("http://127.0.0.1:3000/rpc").is_ok());
    /// assert!(HttpClient::new("not a url").is_err());
    /// # #[cfg(not(feature = "tls"))]
    /// assert!(HttpClient::new("https://example.com/").is_err(), "no TLS without the `tls` feature");
    /// ```
    pub fn new(url: &str) -> Result<Self, HttpConfigError> {
        HttpClient::builder(url).build()
    }

    /// A builder for a client of the server at `url`, to set headers, a
    /// timeout and a retry policy. A bad URL is reported by
    /// [`build`](HttpClientBuilder::build).
    ///
    /// ```
    /// use std::time::Duration;
    /// use typed_rpc::transport::http::HttpClient;
    ///
    /// let client = HttpClient::builder("http://127.0.0.1:3000/a2a")
    ///     .header("a2a-version", "1.0")
    ///     .timeout(Duration::from_secs(30))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(client.url().path(), "/a2a");
    /// ```
    pub fn builder(url: &str) -> HttpClientBuilder {
        HttpClientBuilder::new(url)
    }

    /// The URL calls are sent to.
    pub fn url(&self) -> &Uri {
        &self.inner.uri
    }

    /// How long a call waits for its reply, if it is bounded (see
    /// [`HttpClientBuilder::timeout`]).
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.timeout
    }

    /// `POST`s `body` once and returns the body of a 2xx response.
    async fn post(&self, body: Bytes) -> Result<Bytes, ClientError> {
        let inner = &self.inner;
        let exchange = async {
            let body = self.send(body, None).await?.into_body();
            read_whole(body, inner.max_response_size)
                .await
                .map_err(|err| {
                    let kind = match err {
                        BodyError::TooLarge { .. } => TransportErrorKind::Refused,
                        BodyError::Read(_) => TransportErrorKind::Closed,
                    };
                    ClientError::Transport(TransportError::with_source(kind, err))
                })
        };
        self.within_timeout(exchange).await
    }

    /// `POST`s `body` once, with `accept` for an `Accept` header if given,
    /// and returns a 2xx response, its body unread.
    async fn send(
        &self,
        body: Bytes,
        accept: Option<HeaderValue>,
    ) -> Result<http::Response<Incoming>, ClientError> {
        let inner = &self.inner;
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = inner.uri.clone();
        *request.headers_mut() = inner.headers.clone();
        if let Some(accept) = accept {
            request.headers_mut().insert(header::ACCEPT, accept);
        }
        let response = inner.client.request(request).await.map_err(send_error)?;
        if !response.status().is_success() {
            let (parts, body) = response.into_parts();
            return Err(ClientError::Http(HttpError::new(
                parts.status.as_u16(),
                retry_after(&parts.headers),
                body_start(body).await,
            )));
        }
        Ok(response)
    }

    /// Runs `exchange` under the client's timeout.
    async fn within_timeout<T>(
        &self,
        exchange: impl Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        match self.inner.timeout {
            Some(timeout) => tokio::time::timeout(timeout, exchange)
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::Transport(TransportError::new(
                        TransportErrorKind::Timeout,
                    )))
                }),
            None => exchange.await,
        }
    }

    /// The text of `request` in the protocol version the client speaks.
    fn request_text(&self, request: &OutgoingRequest<'_>, id: Option<u64>) -> String {
        if self.inner.version_1 {
            json_rpc_1::request_text(request, id)
        } else {
            request.to_text(id)
        }
    }

    /// Runs `attempt` until it succeeds, or fails in a way the retry policy
    /// does not retry. Calls not marked idempotent are attempted once.
    async fn with_retries<T, F, Fut>(
        &self,
        idempotent: bool,
        mut attempt: F,
    ) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let policy = self.inner.retry.as_ref().filter(|_| idempotent);
        let mut attempts = 1;
        loop {
            let result = attempt().await;
            let delay = match (&result, policy) {
                (Err(err), Some(policy)) => policy.delay_after(attempts, err),
                _ => None,
            };
            let Some(delay) = delay else {
                return result;
            };
            tracing::debug!(attempts, ?delay, "retrying an idempotent call");
            tokio::time::sleep(delay).await;
            attempts += 1;
        }
    }
}

impl Transport for HttpClient {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let body = Bytes::from(self.request_text(&request, Some(id)));
        let reply = self
            .with_retries(request.is_idempotent(), || self.post(body.clone()))
            .await?;
        if self.inner.version_1 {
            let text = json_rpc_1::reply_as_2_0(&into_text(reply)?).map_err(invalid_reply)?;
            return reply_to(Bytes::from(text), id);
        }
        reply_to(reply, id)
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        let body = Bytes::from(self.request_text(&notification, None));
        let reply = self
            .with_retries(notification.is_idempotent(), || self.post(body.clone()))
            .await?;
        // Nothing is expected back; a server that answers anyway with an
        // error object (it could not read the message) is heard.
        let response = match std::str::from_utf8(&reply) {
            Ok(text) if self.inner.version_1 => Response::from_any_version(text),
            Ok(text) => serde_json::from_str::<Response<'_>>(text),
            Err(_) => return Ok(()),
        };
        match response {
            Ok(response) => response.into_result().map(drop).map_err(ClientError::Rpc),
            Err(_) => Ok(()),
        }
    }

    async fn send_batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        if self.inner.version_1 {
            return Err(ClientError::Transport(TransportError::with_source(
                TransportErrorKind::Refused,
                std::io::Error::other("JSON-RPC 1.0 has no batches"),
            )));
        }
        let requests = batch.request_count();
        let first_id = self
            .inner
            .next_id
            .fetch_add(requests as u64, Ordering::Relaxed);
        let reply = self.post(Bytes::from(batch.to_text(first_id))).await?;
        if reply.iter().all(u8::is_ascii_whitespace) {
            // Only notifications, or a server that answers nothing.
            return Ok(BatchResponse::from_replies(Vec::new()));
        }
        BatchResponse::from_reply(requests, first_id, &into_text(reply)?)
    }

    /// Asks for Server-Sent Events; the timeout bounds the wait for the
    /// response to begin, not the stream. A plain JSON answer is an error
    /// the server gave before any item, or a server that answered with one
    /// result: its only item.
    async fn send_stream(
        &self,
        request: OutgoingRequest<'_>,
        _: &'static crate::StreamInfo,
    ) -> Result<RawItems, ClientError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let body = Bytes::from(self.request_text(&request, Some(id)));
        let accept = HeaderValue::from_static("application/json, text/event-stream");
        let response = self.within_timeout(self.send(body, Some(accept))).await?;
        let limit = self.inner.max_response_size;
        if client_events::is_event_stream(response.headers()) {
            return Ok(client_events::items(response.into_body(), id, limit));
        }
        let reply = self
            .within_timeout(async {
                read_whole(response.into_body(), limit)
                    .await
                    .map_err(|err| {
                        ClientError::Transport(TransportError::with_source(
                            TransportErrorKind::Closed,
                            err,
                        ))
                    })
            })
            .await?;
        let result = crate::client::decode_result::<Box<serde_json::value::RawValue>>(&reply_to(
            reply, id,
        )?)?;
        Ok(Box::pin(One(Some(Ok(result)))))
    }
}

/// A stream of one item.
struct One<T>(Option<T>);

impl<T: Unpin> futures_core::Stream for One<T> {
    type Item = T;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<T>> {
        std::task::Poll::Ready(self.0.take())
    }
}

/// The reply to the request with `id`, checked to be a response to it.
fn reply_to(reply: Bytes, id: u64) -> Result<String, ClientError> {
    let text = into_text(reply)?;
    let response: Response<'_> = serde_json::from_str(&text).map_err(invalid_reply)?;
    match response.id() {
        Some(echoed) if echoed.as_u64() == Some(id) => {}
        // The server could not read the request's id: its error is the answer.
        None if response.result().is_err() => {}
        echoed => {
            let echoed = echoed.map_or("null", |id| id.as_json());
            return Err(invalid_reply(serde::de::Error::custom(format_args!(
                "the reply is for id {echoed}, the request had id {id}"
            ))));
        }
    }
    Ok(text)
}

fn into_text(reply: Bytes) -> Result<String, ClientError> {
    if reply.is_empty() {
        return Err(invalid_reply(serde::de::Error::custom(
            "the server sent no reply to a request",
        )));
    }
    String::from_utf8(reply.into()).map_err(|err| invalid_reply(serde::de::Error::custom(err)))
}

fn invalid_reply(err: serde_json::Error) -> ClientError {
    ClientError::Decode(DecodeError::invalid_response(err))
}

/// The transport error for a request that got no response.
fn send_error(err: legacy::Error) -> ClientError {
    let kind = if err.is_connect() {
        TransportErrorKind::Connect
    } else {
        let hyper_error = std::error::Error::source(&err)
            .and_then(|source| source.downcast_ref::<hyper::Error>());
        match hyper_error {
            Some(err) if err.is_parse() || err.is_user() => TransportErrorKind::Io,
            Some(err) if err.is_timeout() => TransportErrorKind::Timeout,
            _ => TransportErrorKind::Closed,
        }
    };
    ClientError::Transport(TransportError::with_source(kind, err))
}

/// The start of an error response's body, for diagnostics.
async fn body_start(mut body: Incoming) -> String {
    let mut start = Vec::new();
    while start.len() < ERROR_BODY_LIMIT {
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    start.extend_from_slice(data);
                }
            }
            _ => break,
        }
    }
    start.truncate(ERROR_BODY_LIMIT);
    let text = String::from_utf8_lossy(&start);
    text.trim_end().to_owned()
}

/// The delay asked for in `Retry-After`: seconds, or an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// A header a client adds to its requests (the HTTP client's, or the
/// WebSocket handshake's), or what is wrong with it. Credentials
/// (`authorization`, `proxy-authorization`, `cookie`) are marked sensitive,
/// which keeps them out of the request's `Debug` and of HTTP/2's header
/// compression tables.
pub(crate) fn request_header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("invalid header name `{name}`"))?;
    let mut value =
        HeaderValue::from_str(value).map_err(|_| format!("invalid value for header `{name}`"))?;
    if matches!(
        name,
        header::AUTHORIZATION | header::PROXY_AUTHORIZATION | header::COOKIE
    ) {
        value.set_sensitive(true);
    }
    Ok((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_retry_after(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::RETRY_AFTER, value.parse().unwrap());
        headers
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(
            retry_after(&with_retry_after("120")),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            retry_after(&with_retry_after("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO),
            "a date in the past means now"
        );
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3600));
        let delay = retry_after(&with_retry_after(&later)).unwrap();
        assert!(delay > Duration::from_secs(3500) && delay <= Duration::from_secs(3600));
        assert_eq!(retry_after(&with_retry_after("soon")), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn replies_must_answer_the_request_id() {
        let reply = |text: &'static str| Bytes::from_static(text.as_bytes());
        assert!(reply_to(reply(r#"{"jsonrpc":"2.0","result":1,"id":7}"#), 7).is_ok());
        let mismatch = reply_to(reply(r#"{"jsonrpc":"2.0","result":1,"id":8}"#), 7);
        assert!(matches!(mismatch, Err(ClientError::Decode(_))));
        let unread =
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
        assert!(reply_to(reply(unread), 7).is_ok(), "passed on as the error");
        let null_result = reply_to(reply(r#"{"jsonrpc":"2.0","result":1,"id":null}"#), 7);
        assert!(matches!(null_result, Err(ClientError::Decode(_))));
        assert!(matches!(
            reply_to(reply(""), 7),
            Err(ClientError::Decode(_))
        ));
    }

    #[test]
    fn headers_replace_defaults_and_add_up() {
        let client = HttpClient::builder("http://localhost/")
            .header("accept", "application/json-rpc")
            .header("x-tag", "a")
            .header("x-tag", "b")
            .header("authorization", "Bearer t")
            .build()
            .unwrap();
        let headers = &client.inner.headers;
        assert_eq!(headers.get_all("accept").iter().count(), 1);
        assert_eq!(headers["accept"], "application/json-rpc");
        assert_eq!(headers.get_all("x-tag").iter().count(), 2);
        assert!(headers["authorization"].is_sensitive());
        assert!(!format!("{client:?}").contains("Bearer"));
    }
}
