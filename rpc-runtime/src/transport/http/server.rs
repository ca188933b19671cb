//! The HTTP server: a `tower::Service` over the router, and the listener that serves it.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::body::Body;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpStream, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use super::ResponseBody;
use super::header_wait::HeaderWait;
use super::whole::{BodyError, BoxError, read_whole};
use crate::transport::server::{Lifecycle, accept_loop, bind};
use crate::transport::sync::lock;
use crate::transport::sync::rare_events::{self, Event, Raced, Rare};
use crate::transport::{Limits, Server, ServerHandle};
use crate::{Context, Router};

/// What a connection over the limit is sent before it is closed.
const REFUSAL: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/// The server as a [`tower::Service`](tower_service::Service) of HTTP
/// requests, to mount in an axum (or any tower-based) app at a path of your
/// choosing, under the layers you want (authentication, CORS, tracing, ...).
///
/// It answers as [`Server::serve_http`] does (see there for the status codes)
/// and never fails: every problem is an HTTP response. It runs on tokio, with
/// the timer enabled (for [`Limits::body_timeout`]), as `#[tokio::main]` and
/// axum's `serve` have it. Clones share the
/// router. Handlers see [`TransportKind::Http`](crate::TransportKind::Http), the request's headers, and
/// the peer's address when the request carries a [`SocketAddr`] extension
/// (put it there from axum's `ConnectInfo` with a small layer).
///
/// With the `ws` feature it also accepts WebSocket handshakes when the server
/// running it supports upgrades (axum's `serve` does, as does hyper's
/// `serve_connection(..).with_upgrades()`); the `transport::ws` module says
/// what [`Server::serve_http`] does for those connections that it does not.
///
/// ```
/// use bytes::Bytes;
/// use http_body_util::{BodyExt, Full};
/// use rpc_runtime::transport::Server;
/// use tower_service::Service;
/// # use rpc_runtime::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let mut rpc = Server::new(Router::new(Nothing)).into_http_service();
/// let request = http::Request::post("/rpc")
///     .header("content-type", "application/json")
///     .body(Full::new(Bytes::from_static(br#"{"jsonrpc":"2.0","method":"nope","id":1}"#)))
///     .unwrap();
/// let response = rpc.call(request).await.unwrap();
/// assert_eq!(response.status(), 200);
/// assert_eq!(response.headers()["content-type"], "application/json");
/// let body = response.into_body().collect().await.unwrap().to_bytes();
/// assert_eq!(body, r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}"#);
/// # });
/// ```
///
/// In axum 0.8 (not a dependency of this crate, hence not compiled here):
///
/// ```ignore
/// let rpc = Server::new(router).into_http_service();
/// let app = axum::Router::new()
///     .route_service("/rpc", rpc)
///     .layer(tower_http::cors::CorsLayer::permissive());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, app).await?;
/// ```
#[derive(Clone)]
pub struct HttpService {
    shared: Arc<Shared>,
}

/// What every request of one HTTP server needs.
pub(crate) struct Shared {
    pub(crate) router: Router,
    pub(crate) limits: Limits,
    /// Cancelled when the server begins a graceful shutdown, for the
    /// connections that outlive their HTTP request (WebSocket). Never
    /// cancelled for an [`HttpService`] served by someone else.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    pub(crate) stopping: CancellationToken,
}

/// The session of a connection upgraded to WebSocket, left by the response
/// to its handshake for the task that serves the HTTP connection: that task
/// runs it once hyper hands the socket over, so the session keeps the
/// connection's slot under [`Limits::max_connections`] and is tracked by the
/// server's graceful shutdown.
#[derive(Default)]
pub(crate) struct Handover(std::sync::Mutex<Option<Session>>);

/// A connection's life after its HTTP request, as a task.
pub(crate) type Session = Pin<Box<dyn Future<Output = ()> + Send>>;

impl Handover {
    /// Leaves `session` for the connection's task to run.
    #[cfg(feature = "ws")]
    pub(crate) fn leave(&self, session: Session) {
        *lock(&self.0) = Some(session);
    }

    fn take(&self) -> Option<Session> {
        lock(&self.0).take()
    }
}

impl fmt::Debug for HttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpService")
            .field("router", &self.shared.router)
            .field("limits", &self.shared.limits)
            .finish()
    }
}

impl From<Server> for HttpService {
    fn from(server: Server) -> Self {
        HttpService {
            shared: Arc::new(Shared {
                router: server.router,
                limits: server.limits,
                stopping: CancellationToken::new(),
            }),
        }
    }
}

impl Server {
    /// The server as a `tower::Service` of HTTP requests, to mount in an
    /// axum app or serve with hyper yourself. See [`HttpService`].
    ///
    /// ```
    /// use rpc_runtime::transport::{HttpService, Limits, Server};
    /// # use rpc_runtime::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// let service: HttpService = Server::new(Router::new(Nothing))
    ///     .limits(Limits::default().max_message_size(1 << 20))
    ///     .into_http_service();
    /// let for_another_route = service.clone(); // clones share the router
    /// # let _ = for_another_route;
    /// ```
    pub fn into_http_service(self) -> HttpService {
        HttpService::from(self)
    }

    /// Serves JSON-RPC over HTTP/1.1 on `addr` until the returned handle is
    /// shut down.
    ///
    /// Requests are `POST`ed to any path with a JSON body; connections are
    /// kept alive between requests. The answers:
    ///
    /// | request | status | body |
    /// |---|---|---|
    /// | anything that gets a JSON-RPC reply, errors included | `200` | the reply, `Content-Type: application/json` |
    /// | a notification, or a batch of notifications only | `204` | none |
    /// | a WebSocket handshake (`ws` feature) | `101`, then WebSocket (see the `transport::ws` module) | none |
    /// | a method other than `POST` | `405`, `Allow: POST` | a short text |
    /// | a `Content-Type` that is not JSON, a charset other than UTF-8, or a `Content-Encoding` | `415`, `Accept: application/json` | a short text |
    /// | a body over [`Limits::max_message_size`] | `413` (the connection is closed) | a short text |
    /// | a body not all there within [`Limits::body_timeout`] | `408` (the connection is closed) | a short text |
    /// | a connection beyond [`Limits::max_connections`] | `503`, then closed | none |
    ///
    /// A missing `Content-Type` is taken for JSON (hand-written requests and
    /// minimal clients need not spell it out); `application/json` may carry
    /// `charset=utf-8`, and `application/json-rpc`, `application/jsonrequest`
    /// and `application/*+json` are accepted too. A declared non-JSON type
    /// is refused, curl's `--data` default
    /// (`application/x-www-form-urlencoded`) included: use `curl --json`, or
    /// `-H 'Content-Type: application/json'`. An oversized body is
    /// refused on its `Content-Length` before any of it is read, and a chunked
    /// one as soon as it grows past the limit: nothing over the limit is ever
    /// buffered. A client that does not send its headers within
    /// [`Limits::header_timeout`] is disconnected (without a response), and
    /// so is a kept-alive connection idle for that long; one whose body is
    /// not all there within [`Limits::body_timeout`] of its headers gets a
    /// `408`.
    ///
    /// A graceful [`shutdown`](ServerHandle::shutdown) stops accepting
    /// connections, lets the requests in flight finish and send their
    /// replies, and closes each connection once it is idle (a WebSocket
    /// connection with close code `1001`). WebSocket connections count
    /// against [`Limits::max_connections`] like the others.
    ///
    /// ```no_run
    /// use rpc_runtime::transport::Server;
    /// # async fn demo(router: rpc_runtime::Router) -> std::io::Result<()> {
    ///
    /// let handle = Server::new(router).serve_http("127.0.0.1:3000").await?;
    /// println!("listening on {}", handle.local_addr().unwrap());
    /// // ... later:
    /// handle.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<ServerHandle> {
        let (listener, local_addr) = bind(addr).await?;
        let limits = self.limits.clone();
        let lifecycle = Lifecycle::default();
        let shared = Arc::new(Shared {
            router: self.router,
            limits: self.limits,
            stopping: lifecycle.stopping.clone(),
        });
        let mut builder = http1::Builder::new();
        // The header timeout is the connection's own (`HeaderWait`): hyper's
        // costs a timer per request.
        builder.header_read_timeout(None).keep_alive(true);
        let stopping = lifecycle.stopping.clone();
        accept_loop(
            listener,
            &limits,
            &lifecycle,
            REFUSAL,
            move |stream, peer| {
                serve_connection(
                    builder.clone(),
                    stream,
                    peer,
                    shared.clone(),
                    stopping.clone(),
                )
            },
        );
        Ok(ServerHandle::new(
            Some(local_addr),
            lifecycle,
            limits.shutdown_wait(),
        ))
    }
}

/// Serves one connection until the peer closes it, or until the server stops
/// and the request in flight (if any) has been answered. A connection
/// upgraded to WebSocket is then served here, to its end.
async fn serve_connection(
    builder: http1::Builder,
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    stopping: CancellationToken,
) {
    let header_timeout = shared.limits.header_wait();
    // What the service needs for each request, in one `Arc`: one clone per
    // request.
    let state = Arc::new(ConnectionState {
        shared,
        peer,
        handover: Handover::default(),
        header_wait: HeaderWait::new(),
    });
    let service = hyper::service::service_fn({
        let state = state.clone();
        move |request| respond(state.clone(), request)
    });
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    let mut connection = std::pin::pin!(connection);
    // The server stopping (first) and the header timeout (second) in one
    // `Rare`: polled only when one of them fires.
    let mut interrupts = Rare::new(rare_events::either(
        stopping.cancelled_owned(),
        state.header_wait.expired(header_timeout),
    ));
    let served = loop {
        match interrupts.race(connection.as_mut()).await {
            Raced::Done(served) => break served,
            Raced::Interrupted(Event::First) => connection.as_mut().graceful_shutdown(),
            // Dropping the connection closes it, without a response.
            Raced::Interrupted(Event::Second) => {
                tracing::debug!(%peer, "no request headers within the header timeout");
                return;
            }
        }
    };
    if let Err(err) = served {
        tracing::debug!(%peer, %err, "HTTP connection ended with an error");
    }
    // After a `101 Switching Protocols`, hyper has handed the socket over.
    if let Some(session) = state.handover.take() {
        session.await;
    }
}

/// One connection of [`Server::serve_http`], as its requests see it.
struct ConnectionState {
    shared: Arc<Shared>,
    peer: SocketAddr,
    handover: Handover,
    header_wait: HeaderWait,
}

/// Where a request came from, as [`respond`] needs to know it: a
/// connection of [`Server::serve_http`], or an [`HttpService`] mounted
/// elsewhere. One generic `respond` rather than a wrapper per origin: a
/// future awaiting another holds (and copies) the other whole.
trait Origin {
    fn shared(&self) -> &Shared;
    fn peer(&self) -> Option<SocketAddr>;
    /// Where a WebSocket handshake leaves its session; `None`: spawn it.
    #[cfg_attr(not(feature = "ws"), allow(dead_code))]
    fn handover(&self) -> Option<&Handover>;
    /// The request's headers are in.
    fn serving(&self) {}
    /// The response is ready.
    fn answered(&self) {}
}

impl Origin for Arc<ConnectionState> {
    fn shared(&self) -> &Shared {
        &self.shared
    }

    fn peer(&self) -> Option<SocketAddr> {
        Some(self.peer)
    }

    fn handover(&self) -> Option<&Handover> {
        Some(&self.handover)
    }

    fn serving(&self) {
        self.header_wait.serving();
    }

    /// hyper writes the response and then waits for the next request's
    /// headers.
    fn answered(&self) {
        self.header_wait.waiting();
    }
}

/// A request that came to an [`HttpService`].
struct Mounted {
    shared: Arc<Shared>,
    peer: Option<SocketAddr>,
}

impl Origin for Mounted {
    fn shared(&self) -> &Shared {
        &self.shared
    }

    fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    fn handover(&self) -> Option<&Handover> {
        None
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = HttpResponseFuture;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> HttpResponseFuture {
        let origin = Mounted {
            shared: self.shared.clone(),
            peer: request.extensions().get::<SocketAddr>().copied(),
        };
        HttpResponseFuture(Box::pin(respond(origin, request)))
    }
}

/// The response future of [`HttpService`]: resolves to the response, never
/// to an error.
///
/// ```
/// use std::convert::Infallible;
/// use rpc_runtime::transport::http::{HttpResponseFuture, ResponseBody};
///
/// fn is_response_future<F: Future<Output = Result<http::Response<ResponseBody>, Infallible>> + Send>() {}
/// is_response_future::<HttpResponseFuture>();
/// ```
pub struct HttpResponseFuture(
    Pin<Box<dyn Future<Output = Result<Response<ResponseBody>, Infallible>> + Send>>,
);

impl Future for HttpResponseFuture {
    type Output = Result<Response<ResponseBody>, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.0.as_mut().poll(cx)
    }
}

impl fmt::Debug for HttpResponseFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HttpResponseFuture")
    }
}

/// Answers one HTTP request. A WebSocket handshake's session is left with
/// the origin's handover when it has one (`serve_http`), and spawned
/// otherwise.
///
/// A plain `fn` around an `async` block, which holds the request once (an
/// `async fn` holds its arguments twice: captured, then moved to locals);
/// of the request, only the headers outlive the body's read, for the
/// handlers. The future is 1 040 bytes instead of 1 536: hyper keeps one
/// per connection (in a box made with the connection) and moves each
/// request's into it.
#[allow(clippy::manual_async_fn, reason = "the async fn's future is larger")]
fn respond<B, O>(
    origin: O,
    mut request: Request<B>,
) -> impl Future<Output = Result<Response<ResponseBody>, Infallible>>
where
    B: Body,
    B::Error: Into<BoxError>,
    O: Origin,
{
    async move {
        origin.serving();
        let shared = origin.shared();
        let response = 'response: {
            if request.method() != Method::POST {
                // Without the `ws` feature, a WebSocket handshake is an ordinary `GET`: `405`.
                #[cfg(feature = "ws")]
                if request.method() == Method::GET && is_websocket_upgrade(request.headers()) {
                    let handover = origin.handover();
                    break 'response crate::transport::ws::upgrade(
                        request,
                        shared,
                        origin.peer(),
                        handover,
                    );
                }
                break 'response method_not_allowed();
            }
            if !is_json_unencoded(request.headers()) {
                break 'response unsupported_media_type();
            }
            let limit = shared.limits.message_size();
            // The body's declared length (hyper takes it from `Content-Length`).
            if request.body().size_hint().lower() > limit as u64 {
                break 'response too_large();
            }
            let headers = std::mem::take(request.headers_mut());
            let context = Context::of_http(headers, origin.peer());
            let body = read_whole(request.into_body(), limit);
            let body = match rare_events::timeout(shared.limits.body_wait(), body).await {
                Some(Ok(body)) => body,
                None => break 'response body_timed_out(),
                Some(Err(BodyError::TooLarge { .. })) => break 'response too_large(),
                Some(Err(BodyError::Read(err))) => break 'response unreadable(&err),
            };
            match shared.router.handle_with(&body, &context).await {
                Some(reply) => {
                    let mut response = Response::new(ResponseBody::from(reply));
                    response
                        .headers_mut()
                        .insert(header::CONTENT_TYPE, application_json());
                    response
                }
                None => {
                    let mut response = Response::new(ResponseBody::empty());
                    *response.status_mut() = StatusCode::NO_CONTENT;
                    response
                }
            }
        };
        origin.answered();
        Ok(response)
    }
}

fn application_json() -> HeaderValue {
    HeaderValue::from_static("application/json")
}

/// Whether the request is a WebSocket handshake.
#[cfg_attr(not(feature = "ws"), allow(dead_code))]
fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
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
fn is_json_unencoded(headers: &HeaderMap) -> bool {
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

/// A short plain-text answer for an HTTP-level refusal.
pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::from(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cold]
pub(crate) fn method_not_allowed() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::METHOD_NOT_ALLOWED,
        "JSON-RPC requests are sent with POST.\n",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

#[cold]
fn unsupported_media_type() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "The body must be JSON in UTF-8, not compressed: send Content-Type: application/json \
         (with curl: --json, or -H 'Content-Type: application/json').\n",
    );
    response
        .headers_mut()
        .insert(header::ACCEPT, application_json());
    response
}

#[cold]
fn too_large() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        "The request body is over the server's size limit.\n",
    );
    // The rest of the body is never read, so the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cold]
fn unreadable(err: &BoxError) -> Response<ResponseBody> {
    tracing::debug!(%err, "could not read an HTTP request body");
    plain(
        StatusCode::BAD_REQUEST,
        "The request body could not be read.\n",
    )
}

#[cold]
fn body_timed_out() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::REQUEST_TIMEOUT,
        "The request body did not arrive in time.\n",
    );
    // The rest of the body is never read, so the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
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
