//! The HTTP server as a `tower::Service`, and what its requests share.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use http::{Request, Response};
use hyper::body::Body;
use tokio_util::sync::CancellationToken;

use super::respond::{Origin, respond};
use super::{Cors, ResponseBody};
use crate::Router;
use crate::transport::Limits;
use crate::transport::http::read_body::BoxError;
use crate::transport::sync::lock;
use crate::transport::sync::presence::Presence;

/// The server as a [`tower::Service`](tower_service::Service) of HTTP
/// requests, to mount in an axum (or any tower-based) app at a path of your
/// choosing, under the layers you want (authentication, CORS, tracing, ...).
///
/// It answers as [`Server::serve_http`](crate::transport::Server::serve_http) does (see there for the status codes)
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
/// what [`Server::serve_http`](crate::transport::Server::serve_http) does for those connections that it does not.
///
/// ```
/// use bytes::Bytes;
/// use http_body_util::{BodyExt, Full};
/// use typed_rpc::transport::Server;
/// use tower_service::Service;
/// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
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
/// Browser clients from other origins are let in with
/// [`Server::cors`](crate::transport::Server::cors), which this service
/// applies wherever it is mounted, to `POST`s and WebSocket handshakes
/// alike. A CORS layer of the host app (tower-http's) can answer for the
/// `POST`s instead, but not for handshakes: this service still refuses a
/// handshake from an origin other than its own unless `Server::cors`
/// allows it.
///
/// In axum 0.8 (not a dependency of this crate, hence not compiled here):
///
/// ```ignore
/// let rpc = Server::new(router)
///     .cors(Cors::allow_origins(["https://app.example.com"])?)
///     .into_http_service();
/// let app = axum::Router::new().route_service("/rpc", rpc);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, app).await?;
/// ```
#[derive(Clone)]
pub struct HttpService {
    shared: Arc<Shared>,
}

impl HttpService {
    /// The service answering with `shared`.
    pub(crate) fn new(shared: Shared) -> Self {
        HttpService {
            shared: Arc::new(shared),
        }
    }
}

/// What every request of one HTTP server needs.
pub(crate) struct Shared {
    pub(crate) router: Router,
    pub(crate) limits: Limits,
    /// Cancelled when the server begins a graceful shutdown, for the
    /// connections that outlive their HTTP request (WebSocket). Never
    /// cancelled for an [`HttpService`] served by someone else.
    #[cfg_attr(
        not(feature = "ws"),
        allow(dead_code, reason = "only WebSocket outlives its request")
    )]
    pub(crate) stopping: CancellationToken,
    /// How many subscriptions the server's WebSocket peers hold, all together.
    #[cfg(feature = "ws")]
    pub(crate) subscriptions: Arc<std::sync::atomic::AtomicUsize>,
    /// Answers WebSocket handshakes: set by the layer above when WebSocket
    /// is spoken (the `ws` feature); `None` refuses them as any other `GET`.
    pub(crate) upgrade: Option<Upgrade>,
    /// Which web pages may call the server (`None`: only its own origin).
    pub(crate) cors: Option<Arc<Cors>>,
}

/// The answer to a WebSocket handshake, given the request (its body set
/// aside), what the server's requests share, the peer's address and where
/// to leave the upgraded connection's session (`None`: spawn it).
///
/// A hook rather than a call: the WebSocket layer stands on HTTP, so HTTP
/// cannot name it; it sets this hook in [`Shared`] instead.
pub(crate) type Upgrade =
    fn(Request<()>, &Shared, Option<SocketAddr>, Option<&Handover>) -> Response<ResponseBody>;

/// The session of a connection upgraded to WebSocket, left by the response
/// to its handshake for the task that serves the HTTP connection: that task
/// runs it once hyper hands the socket over, so the session keeps the
/// connection's place under [`Limits::max_connections`] (and its presence
/// in the listener's registry) and is tracked by the server's graceful
/// shutdown.
pub(crate) struct Handover {
    session: std::sync::Mutex<Option<Session>>,
    #[cfg_attr(
        not(feature = "ws"),
        allow(dead_code, reason = "only WebSocket outlives its request")
    )]
    presence: Arc<Presence>,
}

/// A connection's life after its HTTP request, as a task.
pub(crate) type Session = Pin<Box<dyn Future<Output = ()> + Send>>;

impl Handover {
    /// The handover of a connection the listener admitted with `presence`.
    pub(super) fn new(presence: Arc<Presence>) -> Self {
        Handover {
            session: std::sync::Mutex::new(None),
            presence,
        }
    }

    /// Leaves `session` for the connection's task to run.
    #[cfg(feature = "ws")]
    pub(crate) fn leave(&self, session: Session) {
        *lock(&self.session) = Some(session);
    }

    /// The connection's presence in the listener's registry, for its session.
    #[cfg(feature = "ws")]
    pub(crate) fn presence(&self) -> &Arc<Presence> {
        &self.presence
    }

    pub(super) fn take(&self) -> Option<Session> {
        lock(&self.session).take()
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
/// use typed_rpc::transport::http::{HttpResponseFuture, ResponseBody};
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
