//! What a handler may know about the request it serves: the transport, the
//! peer's address, the HTTP headers (`http` feature), and a handle to its
//! connection.

use std::fmt;
use std::net::SocketAddr;

mod extensions;

pub use extensions::Extensions;

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
    #[cfg(feature = "duplex")]
    connection: Option<crate::transport::Connection>,
    #[cfg(feature = "http")]
    headers: Option<http::HeaderMap>,
    #[cfg(feature = "http")]
    events: Option<crate::transport::http::EventSender>,
    extensions: Extensions,
}

/// The context of a request delivered in-process, with nothing known about the caller.
pub(crate) static IN_PROCESS: Context = Context::new(TransportKind::InProcess);

impl Context {
    /// A context for requests arriving on `transport`, with nothing else known.
    pub const fn new(transport: TransportKind) -> Self {
        Context {
            transport,
            remote_addr: None,
            #[cfg(feature = "duplex")]
            connection: None,
            #[cfg(feature = "http")]
            headers: None,
            #[cfg(feature = "http")]
            events: None,
            extensions: Extensions::new(),
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

    /// The transport the request arrived on.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The peer's address, on transports that have one (HTTP, WebSocket, TCP).
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.remote_addr
    }

    /// The connection the request came on, on two-way transports (WebSocket,
    /// TCP, stdio): a handle to send notifications and requests back to the
    /// peer, for example through a generated client. What a handler sends
    /// before it returns reaches the peer before its reply: progress
    /// notifications arrive before the result.
    #[cfg(feature = "duplex")]
    pub fn connection(&self) -> Option<&crate::transport::Connection> {
        self.connection.as_ref()
    }

    /// Sends the caller a notification while its request is served: on
    /// its connection over WebSocket, TCP and stdio; over HTTP, as a
    /// Server-Sent Event when the client accepts `text/event-stream` (the
    /// reply then follows as the last event: MCP's progress notifications
    /// over Streamable HTTP). What is sent before the handler returns
    /// arrives before its reply. Fails where the transport cannot carry it
    /// (plain HTTP, in-process) or the caller has gone; it waits while the
    /// caller is slow to read.
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let cx = Context::new(TransportKind::InProcess);
    /// assert!(cx.notify("progress", &serde_json::json!({"step": 1})).await.is_err());
    /// # });
    /// ```
    pub async fn notify<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<(), crate::ClientError> {
        let params = crate::client::Params::from_value(params)?;
        let text = crate::client::OutgoingRequest::new(method, Some(&params)).to_text(None);
        #[cfg(feature = "http")]
        if let Some(events) = &self.events {
            return match events.send(&text).await {
                true => Ok(()),
                false => Err(crate::client::closed()),
            };
        }
        #[cfg(feature = "duplex")]
        if let Some(connection) = &self.connection {
            return connection.enqueue(text).await;
        }
        let _ = text;
        Err(crate::client::cannot_stream())
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

    /// Where this HTTP request's handlers send events, when its client
    /// accepts `text/event-stream`.
    #[cfg(feature = "http")]
    pub(crate) fn events(&self) -> Option<&crate::transport::http::EventSender> {
        self.events.as_ref()
    }

    #[cfg(feature = "http")]
    pub(crate) fn with_events(mut self, events: crate::transport::http::EventSender) -> Self {
        self.events = Some(events);
        self
    }

    #[cfg(feature = "duplex")]
    pub(crate) fn with_connection(mut self, connection: crate::transport::Connection) -> Self {
        self.connection = Some(connection);
        self
    }
}
