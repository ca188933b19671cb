//! Serving HTTP: [`Server::serve_http`](crate::transport::Server::serve_http) and [`Server::into_http_service`],
//! where the HTTP layer meets the WebSocket layer above it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio_util::sync::CancellationToken;

use super::{Lifecycle, Refusals, Server, ServerHandle, accept_loop, bind};
use crate::transport::http::{
    ConnectionBuilder, HttpService, Shared, Upgrade, connection_builder, serve_connection,
};
use crate::transport::sync::presence::Presence;

/// How the HTTP server answers a WebSocket handshake: upgrades it where
/// WebSocket is spoken, else not at all.
#[cfg(feature = "ws")]
const UPGRADE: Option<Upgrade> = Some(crate::transport::ws::upgrade);
#[cfg(not(feature = "ws"))]
const UPGRADE: Option<Upgrade> = None;

/// What a connection is sent before it is closed when there is no room
/// for it, or none for its address. A second is about how long it takes
/// for a connection to become idle enough to give up its slot.
const REFUSALS: Refusals = Refusals {
    full: b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    peer_limit: b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
};

impl From<Server> for HttpService {
    fn from(server: Server) -> Self {
        HttpService::new(Shared {
            router: server.router,
            limits: server.limits,
            stopping: CancellationToken::new(),
            #[cfg(feature = "ws")]
            subscriptions: Default::default(),
            upgrade: UPGRADE,
            cors: server.cors,
        })
    }
}

impl Server {
    /// The server as a `tower::Service` of HTTP requests, to mount in an
    /// axum app or serve with hyper yourself. See [`HttpService`].
    ///
    /// ```
    /// use typed_rpc::transport::{HttpService, Limits, Server};
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
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
    /// shut down; with the `http2` feature, also HTTP/2 with prior knowledge
    /// (h2c: a client that opens with the HTTP/2 preface, as
    /// `curl --http2-prior-knowledge` does), under the same limits. For
    /// `https://`, see [`serve_https`](Server::serve_https).
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
    /// | a browser's request or WebSocket handshake from an origin that may not call the server (see [`Server::cors`]) | `403` | a short text |
    /// | a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), with [`Server::cors`] | `204` with the grant, or `403` | none, or a short text |
    /// | a `Content-Type` that is not JSON, a charset other than UTF-8, or a `Content-Encoding` | `415`, `Accept: application/json` | a short text |
    /// | a body over [`Limits::max_message_size`](crate::transport::Limits::max_message_size) | `413` (the connection is closed) | a short text |
    /// | a body not all there within [`Limits::body_timeout`](crate::transport::Limits::body_timeout) | `408` (the connection is closed) | a short text |
    /// | a connection beyond [`Limits::max_connections`](crate::transport::Limits::max_connections), none idle enough to make room | `503`, `Retry-After: 1`, then closed | none |
    /// | a connection beyond [`Limits::max_connections_per_peer`](crate::transport::Limits::max_connections_per_peer) | `429`, `Retry-After: 1`, then closed | none |
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
    /// [`Limits::header_timeout`](crate::transport::Limits::header_timeout) is disconnected (without a response), and
    /// so is a kept-alive connection idle for that long; one whose body is
    /// not all there within [`Limits::body_timeout`](crate::transport::Limits::body_timeout) of its headers gets a
    /// `408`.
    ///
    /// A graceful [`shutdown`](ServerHandle::shutdown) stops accepting
    /// connections, lets the requests in flight finish and send their
    /// replies, and closes each connection once it is idle (a WebSocket
    /// connection with close code `1001`). WebSocket connections count
    /// against [`Limits::max_connections`](crate::transport::Limits::max_connections) like the others.
    ///
    /// Over HTTP/2 each stream is a request as above (the statuses are the
    /// same; an HTTP/2 connection is never refused with a response, only
    /// closed). A connection serves at most [`Limits::max_in_flight`](crate::transport::Limits::max_in_flight)
    /// streams at once, the header timeout is its idle timeout once no
    /// stream is open, and a graceful shutdown sends `GOAWAY` and lets the
    /// open streams finish. Server-Sent Events work on both versions;
    /// WebSocket upgrades are HTTP/1.1's.
    ///
    /// ```no_run
    /// use typed_rpc::transport::Server;
    /// # async fn demo(router: typed_rpc::Router) -> std::io::Result<()> {
    ///
    /// let handle = Server::new(router).serve_http("127.0.0.1:3000").await?;
    /// println!("listening on {}", handle.local_addr().unwrap());
    /// // ... later:
    /// handle.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn serve_http<A: ToSocketAddrs>(
        &self,
        addr: A,
    ) -> impl Future<Output = io::Result<ServerHandle>> + use<A> {
        // The future owns its copy of the router and limits: it may outlive
        // the borrow of `self` (`tokio::spawn(server.serve_http(..))`).
        let server = self.clone();
        async move {
            let (listener, local_addr) = bind(addr).await?;
            Ok(start(
                server,
                listener,
                local_addr,
                REFUSALS,
                |stream, peer, presence, shared, builder| {
                    serve_connection(builder, stream, peer, shared, presence)
                },
            ))
        }
    }
}

/// Serves HTTP on `listener` under the server's limits: each connection
/// the registry admits is `serve`d (given its stream, its peer, its
/// presence in the registry, what the server's requests share and the
/// builder of its HTTP), a refused one sent its refusal.
pub(super) fn start<F, Fut>(
    server: Server,
    listener: TcpListener,
    local_addr: SocketAddr,
    refusals: Refusals,
    serve: F,
) -> ServerHandle
where
    F: Fn(TcpStream, SocketAddr, Arc<Presence>, Arc<Shared>, ConnectionBuilder) -> Fut
        + Send
        + Sync
        + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let shutdown_wait = server.limits.shutdown_wait();
    let lifecycle = Lifecycle::default();
    let shared = Arc::new(Shared {
        router: server.router,
        limits: server.limits,
        stopping: lifecycle.stopping.clone(),
        #[cfg(feature = "ws")]
        subscriptions: lifecycle.subscriptions.clone(),
        upgrade: UPGRADE,
        cors: server.cors,
    });
    let builder = connection_builder(&shared.limits);
    let limits = shared.limits.clone();
    accept_loop(
        listener,
        &limits,
        &lifecycle,
        refusals,
        // Between requests, the header timeout is the idle timeout.
        limits.header_wait(),
        move |stream, peer, presence| {
            serve(
                stream,
                peer,
                presence.clone(),
                shared.clone(),
                builder.clone(),
            )
        },
    );
    ServerHandle::new(Some(local_addr), lifecycle, shutdown_wait)
}
