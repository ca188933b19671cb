//! Streamable HTTP: an MCP server at one endpoint (`POST`, and for classic
//! sessions `GET` and `DELETE`), both protocol generations.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`StreamableHttp`]: options, serving, `GET` and `DELETE` |
//! | `post.rs` | answering a `POST`: JSON or an event stream |
//! | `headers.rs` | reading a message, and the 2026-07-28 generation's mirrored headers |
//! | `guard.rs` | `Host` and `Origin` checks against DNS rebinding |
//! | `sessions.rs` | classic sessions: streams, the server's calls, running requests |
//! | `events.rs` | event streams: numbered, resumable, bounded |
//! | `port.rs` | the way back to the client from a request's handler |

mod events;
mod guard;
pub(crate) mod headers;
mod port;
mod post;
mod sessions;

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, Limited};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken as CancelToken;
use typed_rpc::Router;

use crate::server::Server;
use events::{SseBody, parse_event_id};
use guard::Guard;
use headers::SESSION_ID;
use sessions::Sessions;

/// The path of the endpoint [`StreamableHttp::serve`] answers at.
pub const ENDPOINT: &str = "/mcp";

/// A server's Streamable HTTP endpoint.
///
/// ```no_run
/// # async fn demo(server: typed_rpc_mcp::server::Server) -> std::io::Result<()> {
/// use typed_rpc_mcp::http::StreamableHttp;
///
/// let running = StreamableHttp::new(&server).serve("127.0.0.1:3000").await?;
/// println!("MCP at http://{}/mcp", running.local_addr());
/// running.stopped().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct StreamableHttp {
    inner: Arc<HttpInner>,
}

pub(crate) struct HttpInner {
    router: Router,
    /// The server, for the tools' mirrored arguments.
    server: Server,
    sessions: Sessions,
    guard: Guard,
    max_body: usize,
    /// Whether a guard was set by hand (else `serve` sets one for its address).
    guarded: bool,
}

/// Builds a [`StreamableHttp`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder {
    server: Server,
    guard: Guard,
    guarded: bool,
    max_body: usize,
    max_sessions: usize,
    session_idle: Duration,
}

impl StreamableHttp {
    /// The endpoint of `server`, with the default options.
    pub fn new(server: &Server) -> Self {
        StreamableHttp::builder(server).build()
    }

    /// A builder of the endpoint of `server`.
    pub fn builder(server: &Server) -> Builder {
        Builder {
            server: server.clone(),
            guard: Guard::default(),
            guarded: false,
            max_body: 4 << 20,
            max_sessions: 1024,
            session_idle: Duration::from_secs(30 * 60),
        }
    }

    /// Answers one HTTP request to the endpoint; `peer` is the client's
    /// address when known. Mount it under any path of another app.
    pub async fn handle<B>(
        &self,
        request: Request<B>,
        peer: Option<SocketAddr>,
    ) -> Response<McpBody>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let inner = &self.inner;
        if let Err(reason) = inner.guard.admits(request.headers()) {
            let text = post::error_text(
                None,
                &typed_rpc::ErrorObject::new(typed_rpc::code::INVALID_REQUEST, reason),
            );
            return json(StatusCode::FORBIDDEN, text);
        }
        match *request.method() {
            Method::POST => {
                if !is_json(request.headers()) {
                    return refuse(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        "the body must be application/json",
                    );
                }
                let (parts, body) = request.into_parts();
                let body = match Limited::new(body, inner.max_body).collect().await {
                    Ok(body) => body.to_bytes(),
                    Err(_) => {
                        return refuse(
                            StatusCode::PAYLOAD_TOO_LARGE,
                            "the body is too large, or was cut off",
                        );
                    }
                };
                post::post(inner, parts.headers, body, peer).await
            }
            Method::GET => get(inner, request.headers()),
            Method::DELETE => delete(inner, request.headers()),
            _ => refuse(StatusCode::METHOD_NOT_ALLOWED, "POST, GET or DELETE"),
        }
    }

    /// Listens on `addr` and serves the endpoint at [`ENDPOINT`] (other
    /// paths answer `404`). A loopback address admits only loopback
    /// names in `Host` and `Origin` unless the builder says otherwise.
    pub async fn serve(mut self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<Running> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        if !self.inner.guarded {
            let inner = Arc::get_mut(&mut self.inner).expect("not shared before serving");
            inner.guard = Guard::for_addr(local_addr);
        }
        let stop = CancelToken::default();
        let task = tokio::spawn(accept_loop(listener, self.clone(), stop.clone()));
        let reaper = self.inner.clone();
        let reaping_stop = stop.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(Duration::from_secs(60));
            loop {
                tokio::select! {
                    _ = ticks.tick() => reaper.sessions.expire(),
                    () = reaping_stop.cancelled() => return,
                }
            }
        });
        Ok(Running {
            local_addr,
            stop,
            task,
            http: self,
        })
    }
}

impl Builder {
    /// Also admits requests whose `Origin` is one of `origins`
    /// (`https://app.example.com`).
    pub fn allow_origins<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.guard
            .allow_origins(origins.into_iter().map(Into::into));
        self.guarded = true;
        self
    }

    /// Admits only requests whose `Host` is one of `hosts` (with or without
    /// the port), when the server is reached by a public name.
    pub fn allow_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.guard.allow_hosts(hosts.into_iter().map(Into::into));
        self.guarded = true;
        self
    }

    /// The largest body accepted (default 4 MiB).
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The most classic sessions held at once (default 1024).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How long a classic session may go unused before it ends (default 30 minutes).
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    pub fn build(self) -> StreamableHttp {
        StreamableHttp {
            inner: Arc::new(HttpInner {
                router: self.server.router(),
                server: self.server,
                sessions: Sessions::new(self.max_sessions, self.session_idle),
                guard: self.guard,
                max_body: self.max_body,
                guarded: self.guarded,
            }),
        }
    }
}

/// A running endpoint.
pub struct Running {
    local_addr: SocketAddr,
    stop: CancelToken,
    task: tokio::task::JoinHandle<()>,
    http: StreamableHttp,
}

impl Running {
    /// Where it listens (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Resolves once the endpoint has stopped.
    pub async fn stopped(self) {
        let _ = self.task.await;
    }

    /// Stops accepting connections and ends every session.
    pub async fn shutdown(self) {
        self.stop.cancel();
        self.http.inner.sessions.close_all();
        let _ = self.task.await;
    }
}

async fn accept_loop(listener: TcpListener, http: StreamableHttp, stop: CancelToken) {
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    tracing::debug!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => return,
        };
        let _ = stream.set_nodelay(true);
        let http = http.clone();
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let http = http.clone();
                    async move {
                        let response = match request.uri().path() {
                            ENDPOINT => http.handle(request, Some(peer)).await,
                            _ => refuse(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"),
                        };
                        Ok::<_, Infallible>(response)
                    }
                });
            let connection = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(err) = connection.await {
                tracing::debug!(%err, "an HTTP connection failed");
            }
        });
    }
}

/// `GET`: a classic session's own stream, or the resumption of one of
/// its streams after `Last-Event-ID`.
fn get(inner: &HttpInner, headers: &http::HeaderMap) -> Response<McpBody> {
    if !headers::accepts(headers).1 {
        return refuse(StatusCode::NOT_ACCEPTABLE, "accept text/event-stream");
    }
    let Some(id) = headers.get(SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "no stream without a session (the 2026-07-28 generation has none)",
        );
    };
    let Some(session) = inner.sessions.get(id) else {
        return refuse(StatusCode::NOT_FOUND, "no such session");
    };
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_event_id);
    match resume {
        Some((number, after)) => match session.stream(number) {
            Some(stream) => sse(stream.reader(after, false)),
            None => refuse(StatusCode::NOT_FOUND, "that stream is no longer kept"),
        },
        None if session.standalone.is_read() => {
            refuse(StatusCode::CONFLICT, "the session's stream is already open")
        }
        None => {
            let prime = session
                .state
                .negotiated()
                .is_some_and(|n| n.version >= crate::ProtocolVersion::V2025_11_25);
            sse(session.standalone.reader(0, prime))
        }
    }
}

/// `DELETE`: ends a classic session.
fn delete(inner: &HttpInner, headers: &http::HeaderMap) -> Response<McpBody> {
    let Some(id) = headers.get(SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Mcp-Session-Id names the session to end",
        );
    };
    match inner.sessions.remove(id) {
        true => {
            let mut response = Response::new(McpBody::empty());
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        }
        false => refuse(StatusCode::NOT_FOUND, "no such session"),
    }
}

fn is_json(headers: &http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, text: String) -> Response<McpBody> {
    let mut response = Response::new(McpBody::full(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An event-stream response.
pub(crate) fn sse(body: SseBody) -> Response<McpBody> {
    let mut response = Response::new(McpBody(Inner::Events(Box::new(body))));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// A refusal of the HTTP layer, saying why in plain text.
pub(crate) fn refuse(status: StatusCode, why: &'static str) -> Response<McpBody> {
    let mut response = Response::new(McpBody::full(format!("{why}\n")));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The body of the endpoint's responses: whole, or an event stream.
pub struct McpBody(Inner);

enum Inner {
    Full(Option<Bytes>),
    Events(Box<SseBody>),
}

impl McpBody {
    fn full(text: String) -> Self {
        McpBody(Inner::Full(Some(Bytes::from(text))))
    }

    fn empty() -> Self {
        McpBody(Inner::Full(None))
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.0 {
            Inner::Full(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Inner::Events(body) => Pin::new(body.as_mut()).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.0, Inner::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Inner::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Inner::Full(None) => SizeHint::with_exact(0),
            Inner::Events(_) => SizeHint::default(),
        }
    }
}
