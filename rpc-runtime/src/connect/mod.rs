//! Connecting to whatever a URL names: `http(s)://`, `ws(s)://`, `tcp://` or a `stdio:` child process.
//!
//! [`connect`] (or a [`Connector`] with headers, a timeout, a framing or
//! TLS roots) reads the URL, opens the transport it names with the concrete
//! client of that transport, and hands it back as one type,
//! [`AnyTransport`], which a generated client takes like any other:
//!
//! ```no_run
//! # use typed_rpc::{RpcResult, rpc};
//! # #[rpc] pub trait Calculator {
//! #     #[method(name = "subtract")] async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;
//! # }
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // From a command line or a configuration file: any of
//! // http://127.0.0.1:3000/, ws://127.0.0.1:3000/, tcp://127.0.0.1:4000,
//! // 'stdio:target/debug/examples/calculator --stdio'.
//! let url = std::env::args().nth(1).unwrap_or("http://127.0.0.1:3000/".into());
//! let calculator = CalculatorClient::new(typed_rpc::connect(&url).await?);
//! println!("{}", calculator.subtract(42, 23).await?);
//! # Ok(()) }
//! ```
//!
//! Each scheme needs the cargo feature of its transport: `http` for
//! `http://`, `ws` for `ws://`, `tls` for `https://` and `wss://`, `stream`
//! for `tcp://` and `stdio:`. A URL whose feature is off is
//! [invalid](ConnectError::is_invalid), as is an unknown scheme.

mod endpoint;
mod error;

#[cfg(feature = "duplex")]
use std::future::Future;
use std::time::Duration;

pub use endpoint::Endpoint;
pub use error::ConnectError;

use crate::client::AnyTransport;
#[cfg(feature = "duplex")]
use crate::client::{ClientError, TransportError, TransportErrorKind};
use crate::transport::DEFAULT_CALL_TIMEOUT;
#[cfg(feature = "stream")]
use crate::transport::stream::Framing;

/// How long a closing connection may take to end: as long as a child
/// process gets to exit.
#[cfg(feature = "duplex")]
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Connects to the server `url` names, with a [`Connector`]'s defaults:
/// no extra headers, [`DEFAULT_CALL_TIMEOUT`] for connecting and for each
/// call, newline-delimited messages on `tcp://` and `stdio:`, the system's
/// TLS roots.
pub async fn connect(url: &str) -> Result<AnyTransport, ConnectError> {
    Connector::new().connect(url).await
}

/// Settings for connecting by URL: headers, a timeout, the framing of
/// byte streams, TLS roots. The settings of each concrete client, for
/// whichever one the URL picks.
///
/// ```no_run
/// use std::time::Duration;
///
/// use typed_rpc::Connector;
/// use typed_rpc::client::ClientExt;
/// use typed_rpc::transport::stream::Framing;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let connector = Connector::new()
///     .header("authorization", "Bearer s3cret") // http(s):// and ws(s):// only
///     .timeout(Duration::from_secs(5)) // connecting, and each call after
///     .framing(Framing::ContentLength); // tcp:// and stdio: only
/// let server = connector.connect("stdio:my-language-server --stdio").await?;
/// let capabilities: serde_json::Value = server.call("initialize", None).await?;
/// server.close().await; // its stdin closed, a few seconds to exit
/// # let _ = capabilities; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Connector {
    headers: Vec<(String, String)>,
    timeout: Option<Duration>,
    #[cfg(feature = "stream")]
    framing: Framing,
    #[cfg(feature = "tls")]
    tls: Option<crate::transport::tls::ClientTlsConfig>,
}

impl Default for Connector {
    fn default() -> Self {
        Connector::new()
    }
}

impl Connector {
    /// No extra headers, [`DEFAULT_CALL_TIMEOUT`], newline-delimited
    /// messages on byte streams, the system's TLS roots.
    pub fn new() -> Self {
        Connector {
            headers: Vec::new(),
            timeout: Some(DEFAULT_CALL_TIMEOUT),
            #[cfg(feature = "stream")]
            framing: Framing::Lines,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// Adds a header to every HTTP request, or to the WebSocket handshake.
    /// Connecting to `tcp://` or `stdio:` with headers is
    /// [invalid](ConnectError::is_invalid): they would be dropped unseen.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// How long connecting, and then each call, may take; `None` waits as
    /// long as it takes. Running out is a
    /// [`ClientError`](crate::client::ClientError) of kind
    /// [`Timeout`](crate::client::TransportErrorKind::Timeout).
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = timeout.into();
        self
    }

    /// How messages are delimited on `tcp://` and `stdio:` (default
    /// [`Framing::Lines`]).
    #[cfg(feature = "stream")]
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    /// The roots `https://` and `wss://` trust (default: the system's).
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: crate::transport::tls::ClientTlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Connects to the server `url` names.
    pub async fn connect(&self, url: &str) -> Result<AnyTransport, ConnectError> {
        self.connect_to(&Endpoint::parse(url)?).await
    }

    /// Connects to `endpoint` (a URL read beforehand, to refuse a wrong one
    /// before other work).
    pub async fn connect_to(&self, endpoint: &Endpoint) -> Result<AnyTransport, ConnectError> {
        let url = endpoint.to_string();
        let headers_unseen = matches!(endpoint, Endpoint::Tcp(_) | Endpoint::Stdio { .. });
        if headers_unseen && !self.headers.is_empty() {
            return Err(ConnectError::invalid(
                &url,
                "headers are for http(s):// and ws(s):// URLs only",
            ));
        }
        match endpoint {
            Endpoint::Http(url) => self.http(url),
            Endpoint::WebSocket(url) => self.websocket(url).await,
            Endpoint::Tcp(address) => self.tcp(&url, address).await,
            Endpoint::Stdio { program, args } => self.stdio(&url, program, args),
        }
    }

    #[cfg(feature = "http")]
    fn http(&self, url: &str) -> Result<AnyTransport, ConnectError> {
        let builder = crate::transport::http::HttpClient::builder(url).timeout(self.timeout);
        let builder = self.headers.iter().fold(builder, |builder, (name, value)| {
            builder.header(name, value)
        });
        #[cfg(feature = "tls")]
        let builder = match &self.tls {
            Some(tls) => builder.tls(tls.clone()),
            None => builder,
        };
        let client = builder
            .build()
            .map_err(|err| ConnectError::invalid(url, err.to_string()))?;
        Ok(AnyTransport::new(client))
    }

    #[cfg(not(feature = "http"))]
    fn http(&self, url: &str) -> Result<AnyTransport, ConnectError> {
        Err(ConnectError::invalid(url, needs_feature("http")))
    }

    #[cfg(feature = "ws")]
    async fn websocket(&self, url: &str) -> Result<AnyTransport, ConnectError> {
        let connector = crate::transport::ws::WsConnector::new();
        let connector = self
            .headers
            .iter()
            .fold(connector, |connector, (name, value)| {
                connector.header(name, value)
            });
        #[cfg(feature = "tls")]
        let connector = match &self.tls {
            Some(tls) => connector.tls(tls.clone()),
            None => connector,
        };
        self.open(url, connector.connect(url)).await
    }

    #[cfg(not(feature = "ws"))]
    async fn websocket(&self, url: &str) -> Result<AnyTransport, ConnectError> {
        Err(ConnectError::invalid(url, needs_feature("ws")))
    }

    #[cfg(feature = "stream")]
    async fn tcp(&self, url: &str, address: &str) -> Result<AnyTransport, ConnectError> {
        let connector = crate::transport::stream::StreamConnector::new(self.framing);
        let connecting = async { connector.connect_tcp(address).await.map_err(cannot_connect) };
        self.open(url, connecting).await
    }

    #[cfg(not(feature = "stream"))]
    async fn tcp(&self, url: &str, _address: &str) -> Result<AnyTransport, ConnectError> {
        Err(ConnectError::invalid(url, needs_feature("stream")))
    }

    /// Starts the program; its stdin closes and it gets [`CLOSE_GRACE`] to
    /// exit when the transport is closed, and it is killed when the
    /// transport is dropped.
    #[cfg(feature = "stream")]
    fn stdio(
        &self,
        url: &str,
        program: &str,
        args: &[String],
    ) -> Result<AnyTransport, ConnectError> {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let child = crate::transport::stream::StreamConnector::new(self.framing)
            .spawn(&mut command)
            .map_err(|err| ConnectError::failed(url, cannot_connect(err)))?;
        let connection = child.connection().clone().with_timeout(self.timeout);
        Ok(AnyTransport::with_close(
            connection,
            move |connection| async move {
                drop(connection);
                let _ = child.close().await;
            },
        ))
    }

    #[cfg(not(feature = "stream"))]
    fn stdio(
        &self,
        url: &str,
        _program: &str,
        _args: &[String],
    ) -> Result<AnyTransport, ConnectError> {
        Err(ConnectError::invalid(url, needs_feature("stream")))
    }

    /// The connection `connecting` opens, within the timeout (running out
    /// is a transport timeout), with the timeout on each of its calls.
    #[cfg(feature = "duplex")]
    async fn open(
        &self,
        url: &str,
        connecting: impl Future<Output = Result<crate::transport::Connection, ClientError>>,
    ) -> Result<AnyTransport, ConnectError> {
        let connected = match self.timeout {
            Some(timeout) => tokio::time::timeout(timeout, connecting)
                .await
                .unwrap_or_else(|_| Err(TransportError::new(TransportErrorKind::Timeout).into())),
            None => connecting.await,
        };
        let connection = connected.map_err(|err| ConnectError::failed(url, err))?;
        Ok(closing(connection.with_timeout(self.timeout)))
    }
}

/// A two-way connection that, closed, ends once its peer has seen the end
/// (or after [`CLOSE_GRACE`], for a peer that never completes it).
#[cfg(feature = "duplex")]
fn closing(connection: crate::transport::Connection) -> AnyTransport {
    AnyTransport::with_close(connection, |connection| async move {
        connection.close();
        let _ = tokio::time::timeout(CLOSE_GRACE, connection.closed()).await;
    })
}

#[cfg(feature = "stream")]
fn cannot_connect(err: std::io::Error) -> ClientError {
    ClientError::Transport(TransportError::with_source(
        TransportErrorKind::Connect,
        err,
    ))
}

/// Why a URL cannot be used in this build.
#[cfg_attr(
    all(feature = "http", feature = "ws", feature = "stream"),
    allow(dead_code)
)]
fn needs_feature(feature: &str) -> String {
    format!("this URL needs typed-rpc's `{feature}` cargo feature")
}
