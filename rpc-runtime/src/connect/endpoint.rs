//! Where a server is, read from its URL: which transport, and its address.

use std::fmt;
use std::str::FromStr;

use super::ConnectError;

/// A server's address, read from its URL by [`Endpoint::parse`].
///
/// | URL | transport |
/// |---|---|
/// | `http://host:port/path`, `https://...` | one `POST` per message (`HttpClient`) |
/// | `ws://host:port/path`, `wss://...` | a WebSocket connection (`WsConnector`) |
/// | `tcp://host:port` | a TCP connection, framed by lines or `Content-Length` |
/// | `stdio:CMD ARGS` | `CMD` run as a child process, spoken to on its stdin and stdout; the words are split as a POSIX shell splits them, quotes included |
///
/// ```
/// use typed_rpc::connect::Endpoint;
///
/// assert_eq!(Endpoint::parse("tcp://localhost:4000")?, Endpoint::Tcp("localhost:4000".into()));
/// let server = Endpoint::parse("stdio:my-server --stdio 'a b'")?;
/// assert_eq!(
///     server,
///     Endpoint::Stdio { program: "my-server".into(), args: vec!["--stdio".into(), "a b".into()] },
/// );
/// assert!(Endpoint::parse("ftp://example.com/").unwrap_err().is_invalid());
/// # Ok::<(), typed_rpc::connect::ConnectError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Endpoint {
    /// `http://` or `https://`: the URL.
    Http(String),
    /// `ws://` or `wss://`: the URL.
    WebSocket(String),
    /// `tcp://host:port`: the address, `host:port`.
    Tcp(String),
    /// `stdio:CMD ARGS`: the program and its arguments.
    Stdio {
        /// The program to run.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl Endpoint {
    /// Reads `url`. An unknown scheme, a TCP address without a host or a
    /// port, and a `stdio:` command that is empty or badly quoted are
    /// [invalid](ConnectError::is_invalid).
    pub fn parse(url: &str) -> Result<Self, ConnectError> {
        let invalid = |reason: &str| ConnectError::invalid(url, reason);
        let (scheme, rest) = url.split_once(':').ok_or_else(|| {
            invalid("not a URL: expected http://, https://, ws://, wss://, tcp://HOST:PORT or stdio:COMMAND")
        })?;
        match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => Ok(Endpoint::Http(url.to_owned())),
            "ws" | "wss" => Ok(Endpoint::WebSocket(url.to_owned())),
            "tcp" => {
                let address = rest
                    .strip_prefix("//")
                    .unwrap_or(rest)
                    .trim_end_matches('/');
                let port_missing = address
                    .rsplit_once(':')
                    .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err());
                if port_missing {
                    return Err(invalid("a TCP address is tcp://HOST:PORT"));
                }
                Ok(Endpoint::Tcp(address.to_owned()))
            }
            "stdio" => stdio(url, rest),
            _ => Err(invalid(&format!(
                "unsupported scheme `{scheme}`: expected http, https, ws, wss, tcp or stdio"
            ))),
        }
    }
}

/// `stdio:COMMAND`: its words as a POSIX shell splits them.
#[cfg(feature = "stream")]
fn stdio(url: &str, command: &str) -> Result<Endpoint, ConnectError> {
    let mut words = shlex::split(command)
        .filter(|words| !words.is_empty())
        .ok_or_else(|| {
            ConnectError::invalid(
                url,
                "expected stdio:COMMAND [ARGS...], quoted as in a shell",
            )
        })?;
    let program = words.remove(0);
    Ok(Endpoint::Stdio {
        program,
        args: words,
    })
}

#[cfg(not(feature = "stream"))]
fn stdio(url: &str, _command: &str) -> Result<Endpoint, ConnectError> {
    Err(ConnectError::invalid(url, super::needs_feature("stream")))
}

impl FromStr for Endpoint {
    type Err = ConnectError;

    fn from_str(url: &str) -> Result<Self, ConnectError> {
        Endpoint::parse(url)
    }
}

/// The URL again (for `stdio:`, its words joined by spaces).
impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Http(url) | Endpoint::WebSocket(url) => f.write_str(url),
            Endpoint::Tcp(address) => write!(f, "tcp://{address}"),
            Endpoint::Stdio { program, args } => {
                write!(f, "stdio:{program}")?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
        }
    }
}
