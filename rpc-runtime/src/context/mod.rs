//! What a handler may know about the request it serves: the transport, the
//! peer's address, the HTTP headers (`http` feature), a handle to its
//! connection, and what layers and earlier calls on that connection left
//! for it.
//!
//! The core knows no transport: a transport that can reach the caller
//! outside the reply (a two-way connection, an HTTP response that may turn
//! into Server-Sent Events) puts a port of the core's own in the context
//! (`peer.rs`), through which [`Context::notify`] and streaming methods
//! reach the caller; the transport adds its own accessors, such as
//! `Context::connection`.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

mod connection_extensions;
mod extensions;
pub(crate) mod peer;

pub use connection_extensions::ConnectionExtensions;
pub use extensions::Extensions;
pub(crate) use peer::Peer;

/// The transport a request arrived on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TransportKind {
    /// Delivered in the same process ([`Router::handle`](crate::Router::handle),
    /// [`InProcess`](crate::client::InProcess)).
    #[default]
    InProcess,
    /// An HTTP `POST`.
    Http,
    /// A WebSocket text frame.
    WebSocket,
    /// A TCP connection.
    Tcp,
    /// The process's stdin and stdout.
    Stdio,
    /// Another byte stream (a child process's pipes, a Unix socket, ...).
    Stream,
}

impl fmt::Display for TransportKind {
    /// The transport's name as a log line would spell it: `in-process`,
    /// `http`, `websocket`, `tcp`, `stdio` or `stream`.
    ///
    /// ```
    /// use typed_rpc::TransportKind;
    ///
    /// assert_eq!(TransportKind::WebSocket.to_string(), "websocket");
    /// assert_eq!(format!("served over {}", TransportKind::Tcp), "served over tcp");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportKind::InProcess => "in-process",
            TransportKind::Http => "http",
            TransportKind::WebSocket => "websocket",
            TransportKind::Tcp => "tcp",
            TransportKind::Stdio => "stdio",
            TransportKind::Stream => "stream",
        })
    }
}

/// Per-request information for handlers that ask for it with a `#[context]`
/// argument.
///
/// ```
/// use typed_rpc::rpc;
/// use typed_rpc::{Context, RpcResult};
///
/// #[rpc]
/// pub trait WhoAmI {
///     /// Describes the caller; `cx` is not a JSON param.
///     #[method(name = "whoami")]
///     async fn whoami(&self, #[context] cx: &Context) -> RpcResult<String>;
/// }
///
/// struct Server;
///
/// impl WhoAmI for Server {
///     async fn whoami(&self, cx: &Context) -> RpcResult<String> {
///         Ok(match cx.remote_addr() {
///             Some(addr) => format!("{:?} peer at {addr}", cx.transport()),
///             None => format!("{:?} caller", cx.transport()),
///         })
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let router = typed_rpc::Router::new(Server.into_service());
/// let reply = router.handle(br#"{"jsonrpc":"2.0","method":"whoami","id":1}"#).await.unwrap();
/// assert_eq!(reply, r#"{"jsonrpc":"2.0","result":"InProcess caller","id":1}"#);
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct Context {
    transport: TransportKind,
    remote_addr: Option<SocketAddr>,
    /// The other end, on transports that reach it outside a reply.
    peer: Option<Arc<dyn Peer>>,
    #[cfg(feature = "http")]
    headers: Option<http::HeaderMap>,
    extensions: Extensions,
    connection_extensions: Option<ConnectionExtensions>,
    handover: Option<crate::streaming::Handover>,
}

/// The context of a request delivered in-process, with nothing known about the caller.
pub(crate) static IN_PROCESS: Context = Context::new(TransportKind::InProcess);

impl Context {
    /// A context for requests arriving on `transport`, with nothing else known.
    pub const fn new(transport: TransportKind) -> Self {
        Context {
            transport,
            remote_addr: None,
            peer: None,
            #[cfg(feature = "http")]
            headers: None,
            extensions: Extensions::new(),
            connection_extensions: None,
            handover: None,
        }
    }

    /// Sets the peer's address.
    pub fn with_remote_addr(mut self, addr: SocketAddr) -> Self {
        self.remote_addr = Some(addr);
        self
    }

    /// What a [call layer](crate::middleware) attached for the handler:
    /// the caller's identity, a tenant, a request-scoped value.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The extensions, to insert into; a layer reaches them through
    /// [`CallRequest::context_mut`](crate::middleware::CallRequest::context_mut).
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// What earlier calls on this call's connection stored for the ones
    /// after them (see [`ConnectionExtensions`]): the caller a `login`
    /// method authenticated, what a layer resolved on the first call.
    ///
    /// Every WebSocket, TCP, stdio and stream connection has its own set,
    /// on both ends, and so does each [`InProcess`](crate::client::InProcess)
    /// client. Plain HTTP has none (`None`): one HTTP connection may carry
    /// the requests of many clients (a proxy's pool, HTTP/2 streams), so
    /// nothing one request proves may carry over to the next; authenticate
    /// each HTTP request from its [headers](Context::headers) and put what a
    /// layer learns in the call's own [extensions](Context::extensions).
    /// The same goes for [`Router::handle`](crate::Router::handle).
    ///
    /// ```
    /// use typed_rpc::context::ConnectionExtensions;
    /// use typed_rpc::{Context, TransportKind};
    ///
    /// struct Tenant(u32);
    ///
    /// let connection = ConnectionExtensions::new();
    /// let first = Context::new(TransportKind::Tcp).with_connection_extensions(connection.clone());
    /// let later = Context::new(TransportKind::Tcp).with_connection_extensions(connection);
    /// first.connection_extensions().unwrap().insert(Tenant(7));
    /// assert_eq!(later.connection_extensions().unwrap().get::<Tenant>().unwrap().0, 7);
    /// assert!(Context::new(TransportKind::Http).connection_extensions().is_none());
    /// ```
    pub fn connection_extensions(&self) -> Option<&ConnectionExtensions> {
        self.connection_extensions.as_ref()
    }

    /// Sets the extensions of the call's connection, for a transport of
    /// one's own (or a test) that carries them.
    pub fn with_connection_extensions(mut self, extensions: ConnectionExtensions) -> Self {
        self.connection_extensions = Some(extensions);
        self
    }

    /// The transport the request arrived on.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The peer's address, on transports that have one (HTTP, WebSocket, TCP).
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.remote_addr
    }

    /// The HTTP request's headers, on the HTTP transport (also for the
    /// WebSocket upgrade request): where credentials such as `Authorization`
    /// arrive.
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    ///
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("authorization", "Bearer t0ken".parse().unwrap());
    /// let cx = Context::new(TransportKind::Http).with_headers(headers);
    /// let auth = cx.headers().and_then(|h| h.get("authorization"));
    /// assert_eq!(auth.unwrap(), "Bearer t0ken");
    /// assert!(Context::new(TransportKind::Stdio).headers().is_none());
    /// ```
    #[cfg(feature = "http")]
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.headers.as_ref()
    }

    /// Sets the HTTP request's headers.
    #[cfg(feature = "http")]
    pub fn with_headers(mut self, headers: http::HeaderMap) -> Self {
        self.headers = Some(headers);
        self
    }

    /// The context of a request of the HTTP server, made in one piece:
    /// each `with_` method moves the whole context in and out, a cost every
    /// request would pay.
    #[cfg(feature = "http")]
    pub(crate) fn of_http(headers: http::HeaderMap, remote_addr: Option<SocketAddr>) -> Self {
        Context {
            remote_addr,
            headers: Some(headers),
            ..Context::new(TransportKind::Http)
        }
    }

    /// The port to the call's peer, on transports that have one (see
    /// [`Peer`]): a two-way connection, an HTTP response that may send events.
    pub(crate) fn peer(&self) -> Option<&dyn Peer> {
        self.peer.as_deref()
    }

    /// Where an in-process caller takes a streaming call's items.
    pub(crate) fn handover(&self) -> Option<&crate::streaming::Handover> {
        self.handover.as_ref()
    }

    pub(crate) fn with_handover(mut self, handover: crate::streaming::Handover) -> Self {
        self.handover = Some(handover);
        self
    }
}
