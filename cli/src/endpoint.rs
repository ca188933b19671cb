//! Where the server is, from its URL, and a connection to it.
//!
//! | URL | transport |
//! |---|---|
//! | `http://host:port/path`, `https://...` | one `POST` per message ([`HttpClient`]) |
//! | `ws://host:port/path`, `wss://...` | a WebSocket connection ([`WsConnector`]) |
//! | `tcp://host:port` | a TCP connection, framed by lines or `Content-Length` |
//! | `stdio:CMD ARGS` | `CMD` run as a child process, spoken to on its stdin and stdout |
//!
//! `https://` and `wss://` trust the system's certificate store (the
//! runtime's clients, built with its `tls` feature).

use std::future::Future;
use std::time::Duration;

use serde_json::value::RawValue;
use typed_rpc::client::{
    Batch, BatchResponse, OutgoingRequest, Params, RawItems, Transport, TransportError,
    TransportErrorKind, decode_result,
};
use typed_rpc::transport::http::HttpClient;
use typed_rpc::transport::stream::{ChildProcess, Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Connection, DEFAULT_CALL_TIMEOUT};
use typed_rpc::{ClientError, StreamInfo};

use crate::exit::Failure;

/// How long a closing connection may take to end: as long as a child
/// process gets to exit.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// A server's address, read from its URL.
#[derive(Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `http://` or `https://`.
    Http(String),
    /// `ws://` or `wss://`.
    WebSocket(String),
    /// `tcp://host:port`: the address.
    Tcp(String),
    /// `stdio:CMD ARGS`: the program and its arguments.
    Stdio { program: String, args: Vec<String> },
}

impl Endpoint {
    /// Reads `url`; an unknown scheme or a malformed command is a usage error.
    pub fn parse(url: &str) -> Result<Self, Failure> {
        let (scheme, rest) = url.split_once(':').ok_or_else(|| {
            Failure::usage(format!(
                "`{url}` is not a URL: expected http://, https://, ws://, wss://, tcp://HOST:PORT \
                 or stdio:COMMAND"
            ))
        })?;
        match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => Ok(Endpoint::Http(url.to_owned())),
            "ws" | "wss" => Ok(Endpoint::WebSocket(url.to_owned())),
            "tcp" => {
                let address = rest
                    .strip_prefix("//")
                    .unwrap_or(rest)
                    .trim_end_matches('/');
                if address
                    .rsplit_once(':')
                    .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
                {
                    return Err(Failure::usage(format!(
                        "`{url}`: a TCP address is tcp://HOST:PORT"
                    )));
                }
                Ok(Endpoint::Tcp(address.to_owned()))
            }
            "stdio" => {
                let mut words = shlex::split(rest).unwrap_or_default().into_iter();
                let program = words.next().ok_or_else(|| {
                    Failure::usage(format!(
                        "`{url}`: expected stdio:COMMAND [ARGS...], quoted as in a shell"
                    ))
                })?;
                Ok(Endpoint::Stdio {
                    program,
                    args: words.collect(),
                })
            }
            _ => Err(Failure::usage(format!(
                "unsupported scheme `{scheme}` in `{url}`: expected http, https, ws, wss, tcp or stdio"
            ))),
        }
    }
}

/// How to connect, beside the URL.
#[derive(Debug)]
pub struct Settings {
    /// Extra HTTP headers (HTTP requests and the WebSocket handshake).
    pub headers: Vec<(String, String)>,
    /// How long connecting and each reply may take; `None` waits as long as it takes.
    pub timeout: Option<Duration>,
    /// How messages are framed on TCP and stdio.
    pub framing: Framing,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            headers: Vec::new(),
            timeout: Some(DEFAULT_CALL_TIMEOUT),
            framing: Framing::Lines,
        }
    }
}

/// A client of one server, over the transport its URL names.
pub enum Client {
    /// `http://`: a `POST` per message.
    Http(HttpClient),
    /// `ws://` or `tcp://`: one connection.
    Connection(Connection),
    /// `stdio:`: the child, and a handle on its connection with the timeout.
    Child(Box<ChildProcess>, Connection),
}

impl Client {
    /// Connects to `endpoint`. Headers on a transport without them are a
    /// usage error; failing to connect is a transport error.
    pub async fn connect(endpoint: &Endpoint, settings: &Settings) -> Result<Client, Failure> {
        if !settings.headers.is_empty()
            && matches!(endpoint, Endpoint::Tcp(_) | Endpoint::Stdio { .. })
        {
            return Err(Failure::usage(
                "--header is for http(s):// and ws(s):// URLs only",
            ));
        }
        let timeout = settings.timeout;
        let streams = StreamConnector::new(settings.framing);
        match endpoint {
            Endpoint::Http(url) => {
                let builder = settings
                    .headers
                    .iter()
                    .fold(HttpClient::builder(url), |builder, (name, value)| {
                        builder.header(name, value)
                    });
                let client = builder
                    .timeout(timeout)
                    .build()
                    .map_err(|err| Failure::usage(err.to_string()))?;
                Ok(Client::Http(client))
            }
            Endpoint::WebSocket(url) => {
                let connector = settings
                    .headers
                    .iter()
                    .fold(WsConnector::new(), |connector, (name, value)| {
                        connector.header(name, value)
                    });
                let connection = within(timeout, connector.connect(url)).await??;
                Ok(Client::Connection(connection.with_timeout(timeout)))
            }
            Endpoint::Tcp(address) => {
                let connection = within(timeout, streams.connect_tcp(address.as_str()))
                    .await?
                    .map_err(|err| cannot_connect(address, err))?;
                Ok(Client::Connection(connection.with_timeout(timeout)))
            }
            Endpoint::Stdio { program, args } => {
                let mut process = tokio::process::Command::new(program);
                process.args(args);
                let child = streams
                    .spawn(&mut process)
                    .map_err(|err| cannot_connect(program, err))?;
                let connection = child.connection().clone().with_timeout(timeout);
                Ok(Client::Child(Box::new(child), connection))
            }
        }
    }

    /// Calls `method` and returns its result exactly as the server wrote it.
    pub async fn request(
        &self,
        method: &str,
        params: Option<&Params>,
    ) -> Result<Box<RawValue>, ClientError> {
        let request = OutgoingRequest::new(method, params);
        let reply = match self {
            Client::Http(http) => http.send_request(request).await?,
            Client::Connection(connection) | Client::Child(_, connection) => {
                connection.send_request(request).await?
            }
        };
        decode_result(&reply)
    }

    /// Calls the streaming `method`, whose items travel as `stream` says on
    /// a two-way connection (as Server-Sent Events over HTTP): its items,
    /// once the server has taken the call.
    pub async fn stream(
        &self,
        method: &str,
        params: Option<&Params>,
        stream: &'static StreamInfo,
    ) -> Result<RawItems, ClientError> {
        let request = OutgoingRequest::new(method, params);
        match self {
            Client::Http(http) => http.send_stream(request, stream).await,
            Client::Connection(connection) | Client::Child(_, connection) => {
                connection.send_stream(request, stream).await
            }
        }
    }

    /// Sends the notification `method`.
    pub async fn notify(&self, method: &str, params: Option<&Params>) -> Result<(), ClientError> {
        let notification = OutgoingRequest::new(method, params);
        match self {
            Client::Http(http) => http.send_notification(notification).await,
            Client::Connection(connection) | Client::Child(_, connection) => {
                connection.send_notification(notification).await
            }
        }
    }

    /// Sends `batch` as one message.
    pub async fn batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        match self {
            Client::Http(http) => http.send_batch(batch).await,
            Client::Connection(connection) | Client::Child(_, connection) => {
                connection.send_batch(batch).await
            }
        }
    }

    /// Ends the session once what was sent has gone out: a connection is
    /// closed (a notification is written before it ends), a child process
    /// gets the end of its stdin and a few seconds to exit.
    pub async fn close(self) {
        match self {
            Client::Http(_) => {}
            Client::Connection(connection) => {
                connection.close();
                // A peer that never completes the close is not waited for
                // forever, even with `--timeout 0`.
                let _ = tokio::time::timeout(CLOSE_GRACE, connection.closed()).await;
            }
            Client::Child(child, connection) => {
                drop(connection);
                let _ = child.close().await;
            }
        }
    }
}

/// Runs `future` under `timeout`, if any; running out is a transport timeout.
async fn within<T>(
    timeout: Option<Duration>,
    future: impl Future<Output = T>,
) -> Result<T, Failure> {
    match timeout {
        Some(timeout) => tokio::time::timeout(timeout, future).await.map_err(|_| {
            Failure::from(ClientError::Transport(TransportError::new(
                TransportErrorKind::Timeout,
            )))
            .context("connecting")
        }),
        None => Ok(future.await),
    }
}

fn cannot_connect(to: &str, err: std::io::Error) -> Failure {
    Failure::from(ClientError::Transport(TransportError::with_source(
        TransportErrorKind::Connect,
        err,
    )))
    .context(to)
}

#[cfg(test)]
mod tests {
    use super::Endpoint;

    #[test]
    fn urls_name_their_transport() {
        assert_eq!(
            Endpoint::parse("http://127.0.0.1:3000/rpc").unwrap(),
            Endpoint::Http("http://127.0.0.1:3000/rpc".into())
        );
        assert_eq!(
            Endpoint::parse("wss://example.com/").unwrap(),
            Endpoint::WebSocket("wss://example.com/".into())
        );
        assert_eq!(
            Endpoint::parse("tcp://localhost:4000").unwrap(),
            Endpoint::Tcp("localhost:4000".into())
        );
        assert_eq!(
            Endpoint::parse("stdio:./calculator --stdio --framing 'content-length'").unwrap(),
            Endpoint::Stdio {
                program: "./calculator".into(),
                args: vec![
                    "--stdio".into(),
                    "--framing".into(),
                    "content-length".into()
                ],
            }
        );
    }

    #[test]
    fn bad_urls_are_usage_errors() {
        for url in [
            "localhost:3000",
            "ftp://x/",
            "tcp://nohost",
            "tcp://:80",
            "stdio:",
            "stdio:'open",
        ] {
            let err = Endpoint::parse(url).unwrap_err();
            assert_eq!(err.exit_code(), crate::exit::USAGE, "{url}");
        }
    }
}
