//! The client side: connecting to a WebSocket server.

use http::header::HeaderMap;
use http::{Request, Uri};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_tungstenite::client_async_with_config;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::session;
use crate::client::{ClientError, HttpError, TransportError, TransportErrorKind};
use crate::transport::Limits;
use crate::transport::connection::{Connection, Setup};
use crate::transport::http::{request_header, retry_after};
use crate::{Context, Router, TransportKind};

/// The most of a refused handshake's body kept in [`HttpError::body`].
const ERROR_BODY_LIMIT: usize = 1024;

/// Opens WebSocket connections to a JSON-RPC server.
///
/// The connection it returns is two-way: use it as the transport of a
/// generated client (`FooClient::new(connection)`), and the server's own
/// requests and notifications are answered by the
/// [`handlers`](WsConnector::handlers) router (by default, with `-32601`).
/// Calls on one connection run concurrently; replies are matched by id.
/// When the last clone of the connection is dropped (or on
/// [`Connection::close`]), the calls in flight end and the connection closes
/// with a clean closing handshake (close code `1000`).
///
/// `ws://`, and with the `tls` feature `wss://` (trusting the system's
/// roots, or those of `WsConnector::tls`). To reach a server some other
/// way (another TLS stack, a proxy's tunnel), open the stream yourself and
/// hand it to [`connect_over`](WsConnector::connect_over).
///
/// ```no_run
/// # async fn demo() -> Result<(), typed_rpc::ClientError> {
/// use std::time::Duration;
/// use typed_rpc::client::ClientExt;
/// use typed_rpc::transport::ws::WsConnector;
///
/// let connection = WsConnector::new()
///     .header("authorization", "Bearer s3cret")
///     .connect("ws://127.0.0.1:3000/rpc")
///     .await?
///     .with_timeout(Duration::from_secs(10));
/// let height: u64 = connection.call("eth_blockNumber", None).await?;
/// # let _ = height; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct WsConnector {
    handlers: Router,
    headers: HeaderMap,
    /// The first mistake in the settings, reported by `connect`.
    error: Option<String>,
    max_message_size: usize,
    max_in_flight: usize,
    /// Whom `wss://` trusts; `None`: the system's roots.
    #[cfg(feature = "tls")]
    tls: Option<crate::transport::tls::ClientTlsConfig>,
}

impl Default for WsConnector {
    fn default() -> Self {
        WsConnector::new()
    }
}

impl WsConnector {
    /// A connector with default limits, no extra headers and no handlers.
    ///
    /// ```
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// let connector = WsConnector::new().max_message_size(1 << 20);
    /// # let _ = connector;
    /// ```
    pub fn new() -> Self {
        let limits = Limits::default();
        WsConnector {
            handlers: Router::empty(),
            headers: HeaderMap::new(),
            error: None,
            max_message_size: limits.message_size(),
            #[cfg(feature = "tls")]
            tls: None,
            max_in_flight: limits.in_flight(),
        }
    }

    /// Serves the server's requests and notifications with `router`: what a
    /// server calls through its handlers' [`Context::connection`].
    ///
    /// ```
    /// use typed_rpc::Router;
    /// use typed_rpc::transport::ws::WsConnector;
    /// # use typed_rpc::{Call, HandlerFuture, RpcService, ServiceInfo};
    /// # struct Notifications;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Notifications", &[]);
    /// # impl RpcService for Notifications {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// let connector = WsConnector::new().handlers(Router::new(Notifications));
    /// # let _ = connector;
    /// ```
    pub fn handlers(mut self, router: Router) -> Self {
        self.handlers = router;
        self
    }

    /// Adds a header to the handshake request (`authorization`, an API key,
    /// `origin`, ...): the server's handlers see it in
    /// [`Context::headers`](crate::Context::headers) for the life of the
    /// connection. Setting one of the handshake's own headers replaces it;
    /// setting a header twice sends both values. `authorization` and
    /// `cookie` values are marked sensitive. A bad name or value fails
    /// [`connect`](WsConnector::connect).
    ///
    /// ```
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// let connector = WsConnector::new()
    ///     .header("authorization", "Bearer s3cret")
    ///     .header("x-api-key", "k3y");
    /// # let _ = connector;
    /// ```
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match request_header(name, value) {
            Ok((name, value)) => {
                self.headers.append(name, value);
            }
            Err(message) => {
                self.error.get_or_insert(message);
            }
        }
        self
    }

    /// The largest message accepted from the server, in bytes (default 10
    /// MiB, as [`Limits`]). A larger one closes the connection with close
    /// code `1009`.
    ///
    /// ```
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// let connector = WsConnector::new().max_message_size(64 * 1024);
    /// # let _ = connector;
    /// ```
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Trusts the servers `tls` trusts over `wss://`, rather than the
    /// system's roots (cargo feature `tls`).
    ///
    /// ```
    /// use typed_rpc::transport::tls::ClientTlsConfig;
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// let connector = WsConnector::new().tls(ClientTlsConfig::new()); // .add_root_pem_file("ca.pem")?
    /// # let _ = connector;
    /// ```
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: crate::transport::tls::ClientTlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Connects to the server at `url` (`ws://host[:port][/path][?query]`,
    /// or `wss://` with the `tls` feature)
    /// and completes the WebSocket handshake. Must be called within a tokio
    /// runtime, which drives the connection.
    ///
    /// Fails with a [`Transport`](ClientError::Transport) error of kind
    /// [`Connect`](TransportErrorKind::Connect) when the URL or a header is
    /// bad, the server cannot be reached or the handshake fails, and with an
    /// [`Http`](ClientError::Http) error when the server answers the
    /// handshake with another status than `101` (a `401` for missing
    /// credentials, say). It does not time out by itself: wrap it in
    /// `tokio::time::timeout` to bound it.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), typed_rpc::ClientError> {
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// let connection = WsConnector::new().connect("ws://127.0.0.1:3000/").await?;
    /// connection.close();
    /// # Ok(()) }
    /// ```
    pub async fn connect(&self, url: &str) -> Result<Connection, ClientError> {
        let request = self.request(url)?;
        let uri = request.uri();
        let secure = match uri.scheme_str() {
            Some("ws") => false,
            #[cfg(feature = "tls")]
            Some("wss") => true,
            _ => {
                return Err(config_error(format!(
                    "unsupported scheme in `{url}`: {SUPPORTED}"
                )));
            }
        };
        let (host, port) = host_and_port(uri, if secure { 443 } else { 80 })
            .ok_or_else(|| config_error(format!("no host in URL `{url}`")))?;
        let stream = TcpStream::connect((host, port))
            .await
            .map_err(|err| TransportError::with_source(TransportErrorKind::Connect, err))?;
        let _ = stream.set_nodelay(true);
        let peer = stream.peer_addr().ok();
        #[cfg(feature = "tls")]
        if secure {
            let stream = self.tls_over(host, stream).await?;
            return self.handshake(request, stream, peer).await;
        }
        self.handshake(request, stream, peer).await
    }

    /// The TLS stream to `host` over `stream`, speaking HTTP/1.1 (the
    /// WebSocket handshake's) by ALPN.
    #[cfg(feature = "tls")]
    async fn tls_over(
        &self,
        host: &str,
        stream: TcpStream,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, ClientError> {
        use crate::transport::tls::ClientTlsConfig;

        let tls = match &self.tls {
            Some(tls) => tls.clone(),
            None => ClientTlsConfig::system_roots().map_err(|err| config_error(err.to_string()))?,
        };
        let mut config = tls.to_rustls();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let name = rustls_pki_types::ServerName::try_from(host.to_owned())
            .map_err(|err| config_error(format!("`{host}` is no server name: {err}")))?;
        tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
            .connect(name, stream)
            .await
            .map_err(|err| {
                ClientError::Transport(TransportError::with_source(
                    TransportErrorKind::Connect,
                    err,
                ))
            })
    }

    /// Completes the WebSocket handshake for `url` over a stream the caller
    /// opened: a TLS stream for `wss://`, a Unix socket, a proxy's tunnel.
    /// `url` gives the `Host` header and the path; its scheme may be `ws` or
    /// `wss`.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use typed_rpc::transport::ws::WsConnector;
    ///
    /// // For wss://, this would be a TLS stream (tokio-rustls, tokio-native-tls).
    /// let stream = tokio::net::TcpStream::connect("127.0.0.1:3000").await?;
    /// let connection = WsConnector::new().connect_over("ws://127.0.0.1:3000/rpc", stream).await?;
    /// # let _ = connection; Ok(()) }
    /// ```
    pub async fn connect_over<S>(&self, url: &str, stream: S) -> Result<Connection, ClientError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let request = self.request(url)?;
        if !matches!(request.uri().scheme_str(), Some("ws" | "wss")) {
            return Err(config_error(format!(
                "unsupported scheme in `{url}`: expected ws:// or wss://"
            )));
        }
        self.handshake(request, stream, None).await
    }

    /// The handshake request for `url`, with the extra headers.
    fn request(&self, url: &str) -> Result<Request<()>, ClientError> {
        if let Some(error) = &self.error {
            return Err(config_error(error.clone()));
        }
        let mut request = url
            .into_client_request()
            .map_err(|err| config_error(format!("invalid URL `{url}`: {err}")))?;
        // The first value of each name replaces the handshake's own, the next ones add to it.
        request.headers_mut().extend(self.headers.clone());
        Ok(request)
    }

    async fn handshake<S>(
        &self,
        request: Request<()>,
        stream: S,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<Connection, ClientError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let config = session::config(self.max_message_size);
        let (ws, _) = client_async_with_config(request, stream, Some(config))
            .await
            .map_err(handshake_error)?;
        let mut context = Context::new(TransportKind::WebSocket);
        if let Some(peer) = peer {
            context = context.with_remote_addr(peer);
        }
        let setup = Setup {
            router: self.handlers.clone(),
            context,
            max_in_flight: self.max_in_flight,
            max_backlog: Limits::default().backlog_size(),
            idle_timeout: None,
            write_timeout: None,
            stopping: Default::default(),
            // The closing handshake waits for the peer's close frame.
            linger: None,
            subscriptions: crate::transport::connection::Budget::unshared(
                crate::transport::Limits::default().subscriptions(),
            ),
            answer_after_close: None,
            presence: None,
        };
        let (connection, session) = session::open(ws, setup);
        tokio::spawn(session);
        Ok(connection)
    }
}

/// The schemes `connect` speaks, as an error says them.
#[cfg(not(feature = "tls"))]
const SUPPORTED: &str = "only ws:// is supported (wss:// with the `tls` feature, or open \
                         the TLS stream yourself and use `connect_over`)";
#[cfg(feature = "tls")]
const SUPPORTED: &str = "only ws:// and wss:// are supported";

/// The host (without the brackets of an IPv6 address) and port of a
/// WebSocket URL, `default_port` when it names none.
fn host_and_port(uri: &Uri, default_port: u16) -> Option<(&str, u16)> {
    let host = uri.host().filter(|host| !host.is_empty())?;
    let host = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    Some((host, uri.port_u16().unwrap_or(default_port)))
}

fn config_error(message: String) -> ClientError {
    ClientError::Transport(TransportError::with_source(
        TransportErrorKind::Connect,
        message,
    ))
}

/// A failed handshake: the server's refusal as an HTTP error, anything else
/// as a failure to connect.
fn handshake_error(err: WsError) -> ClientError {
    match err {
        WsError::Http(response) => {
            let body = response.body().as_deref().unwrap_or_default();
            let body = String::from_utf8_lossy(&body[..body.len().min(ERROR_BODY_LIMIT)]);
            ClientError::Http(HttpError::new(
                response.status().as_u16(),
                retry_after(response.headers()),
                body.trim_end(),
            ))
        }
        other => ClientError::Transport(TransportError::with_source(
            TransportErrorKind::Connect,
            other,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_ports() {
        let uri: Uri = "ws://[::1]:4000/rpc".parse().unwrap();
        assert_eq!(host_and_port(&uri, 80), Some(("::1", 4000)));
        let uri: Uri = "ws://example.com/".parse().unwrap();
        assert_eq!(host_and_port(&uri, 80), Some(("example.com", 80)));
        let uri: Uri = "wss://example.com/".parse().unwrap();
        assert_eq!(host_and_port(&uri, 443), Some(("example.com", 443)));
    }

    #[tokio::test]
    async fn bad_settings_fail_connect() {
        let err = WsConnector::new()
            .header("bad name", "x")
            .connect("ws://127.0.0.1:1/")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("bad name"), "{err}");
        let err = WsConnector::new()
            .connect("http://127.0.0.1:1/")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("only ws://"), "{err}");
    }
}
