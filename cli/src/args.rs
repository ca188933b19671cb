//! The command line, as `clap` reads it.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit;

/// Calls JSON-RPC 2.0 servers over HTTP, WebSocket, TCP or a child process's stdio.
#[derive(Debug, Parser)]
#[command(name = "typed-rpc", version, after_help = exit::TABLE)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Calls METHOD and prints its result (pretty JSON on stdout; errors on stderr).
    #[command(after_help = format!("{CALL_HELP}\n\n{URL_HELP}\n\n{}", exit::TABLE))]
    Call(CallArgs),
    /// Sends the calls of FILE as one batch and prints one entry per request.
    #[command(after_help = format!("{BATCH_HELP}\n\n{URL_HELP}\n\n{}", exit::TABLE))]
    Batch(BatchArgs),
    /// Lists the methods of an OpenRPC document, with their params and summaries.
    #[command(after_help = METHODS_HELP)]
    Methods(MethodsArgs),
}

const URL_HELP: &str = "\
URLs:
  http://HOST:PORT/PATH, https://...   one POST per message
  ws://HOST:PORT/PATH, wss://...       a WebSocket connection
  tcp://HOST:PORT                      newline-delimited JSON (or --framing content-length)
  'stdio:CMD ARGS...'                  CMD as a child process, on its stdin and stdout";

const CALL_HELP: &str = "\
Params:
  '[42, 23]'  '{\"minuend\": 42}'   one JSON array or object: sent as it is
  42 23 Ada                        positional values: [42, 23, \"Ada\"]
  minuend=42 subtrahend=23         named values: {\"minuend\": 42, \"subtrahend\": 23}
  tags:='[\"a\"]'                    KEY:=JSON, a named value that must be JSON
A value is JSON when it parses as JSON, else a string ('\"42\"' is the string \"42\").

Examples:
  typed-rpc call http://127.0.0.1:3000 subtract 42 23
  typed-rpc call ws://127.0.0.1:3000 subtract minuend=42 subtrahend=23
  typed-rpc call 'stdio:calculator --stdio' sum '[1, 2, 4]'
  typed-rpc call --notify tcp://127.0.0.1:4000 update 1 2 3
With --openrpc FILE or --discover, the call is checked before it is sent;
`typed-rpc methods` lists the methods such a document describes.

Streams:
  typed-rpc call --stream http://127.0.0.1:3000 watch 7     Server-Sent Events
  typed-rpc call --stream --compact ws://127.0.0.1:3000 watch 7
  typed-rpc call --notification eth_subscription --unsubscribe eth_unsubscribe \
      ws://127.0.0.1:8545 eth_subscribe newHeads
Each item is printed as it arrives (one line each with --compact) until the
stream ends or Ctrl-C, which unsubscribes. A method whose OpenRPC document
marks it `x-stream` streams without --stream. --timeout bounds the call that
starts the stream, not the wait between items.";

const BATCH_HELP: &str = "\
FILE holds a JSON array of calls, or one call per line:
  {\"method\": \"subtract\", \"params\": [42, 23]}
  {\"method\": \"update\", \"params\": [1, 2], \"notify\": true}
Output: a JSON array with one entry per request, in order:
  {\"method\": M, \"result\": R}, {\"method\": M, \"error\": {...}},
  or {\"method\": M, \"decode_error\": \"...\"} when its reply was missing or not JSON-RPC
The exit code is 5 when an entry is an error object, 6 when one has no valid reply.";

const METHODS_HELP: &str = "\
Each method is shown as name(params), or name{params} when it takes them by name;
an optional param has a `?`, a param that is the whole params value `...`.";

/// `typed-rpc call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The server: http(s)://, ws(s)://, tcp://HOST:PORT or 'stdio:CMD ARGS...'.
    pub url: String,
    /// The method to call.
    pub method: String,
    /// The params: one JSON array or object, VALUEs by position, or KEY=VALUE pairs.
    #[arg(allow_negative_numbers = true)]
    pub params: Vec<String>,
    /// Sends a notification: no reply is expected, nothing is printed.
    #[arg(long, conflicts_with_all = ["stream", "notification", "unsubscribe"])]
    pub notify: bool,
    #[command(flatten)]
    pub stream: StreamArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// A streaming call: how its items travel.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// The method streams: prints each item as it arrives, until the stream ends or Ctrl-C
    /// (implied when the OpenRPC document says the method streams).
    #[arg(long)]
    pub stream: bool,
    /// The notification that carries the items on ws://, tcp:// and stdio: (default: the
    /// document's, else METHOD). Implies --stream.
    #[arg(long, value_name = "METHOD")]
    pub notification: Option<String>,
    /// The method that ends the subscription on ws://, tcp:// and stdio: (default: the
    /// document's, else METHOD_unsubscribe). Implies --stream.
    #[arg(long, value_name = "METHOD")]
    pub unsubscribe: Option<String>,
}

impl StreamArgs {
    /// Whether the command line says the method streams.
    pub fn asked(&self) -> bool {
        self.stream || self.notification.is_some() || self.unsubscribe.is_some()
    }
}

/// `typed-rpc batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The server: http(s)://, ws(s)://, tcp://HOST:PORT or 'stdio:CMD ARGS...'.
    pub url: String,
    /// The calls: a JSON array of calls, or one call per line.
    pub file: PathBuf,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `typed-rpc methods`.
#[derive(Debug, Args)]
pub struct MethodsArgs {
    /// A server to ask with `rpc.discover`, unless --openrpc names a file.
    #[arg(required_unless_present = "openrpc", conflicts_with = "openrpc")]
    pub url: Option<String>,
    /// An OpenRPC document.
    #[arg(long, value_name = "FILE")]
    pub openrpc: Option<PathBuf>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// How to reach the server.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// An HTTP header for every request, or for the WebSocket handshake (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME:VALUE", value_parser = header)]
    pub headers: Vec<(String, String)>,
    /// Seconds to wait for the connection and for each reply; 0 waits forever.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = timeout)]
    pub timeout: Timeout,
    /// How messages are framed on tcp:// and stdio: URLs.
    #[arg(long, value_enum, default_value_t = FramingArg::Lines)]
    pub framing: FramingArg,
}

/// Where the method names and params to check calls against come from.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Checks the call against this OpenRPC document before sending it.
    #[arg(long, value_name = "FILE", conflicts_with = "discover")]
    pub openrpc: Option<PathBuf>,
    /// Checks the call against the server's own document, from `rpc.discover`.
    #[arg(long)]
    pub discover: bool,
}

/// How results are printed.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Prints JSON on one line rather than indented.
    #[arg(long)]
    pub compact: bool,
}

/// The framing of tcp:// and stdio: connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FramingArg {
    /// One JSON message per line (MCP's stdio, most TCP servers).
    Lines,
    /// `Content-Length` headers before each message (LSP).
    ContentLength,
}

/// How long to wait; `None` is as long as it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout(pub Option<Duration>);

/// `NAME:VALUE`, the value without the spaces around it.
fn header(arg: &str) -> Result<(String, String), String> {
    let (name, value) = arg
        .split_once(':')
        .ok_or_else(|| format!("`{arg}` is not NAME:VALUE"))?;
    if name.trim().is_empty() {
        return Err(format!("`{arg}` has no header name"));
    }
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// Seconds, fractions allowed; `0` is no timeout at all.
fn timeout(arg: &str) -> Result<Timeout, String> {
    let seconds: f64 = arg
        .parse()
        .map_err(|_| format!("`{arg}` is not a number of seconds"))?;
    if seconds == 0.0 {
        return Ok(Timeout(None));
    }
    Duration::try_from_secs_f64(seconds)
        .map(|duration| Timeout(Some(duration)))
        .map_err(|_| format!("`{arg}` is not a number of seconds"))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn headers_and_timeouts() {
        assert_eq!(
            header("Authorization: Bearer a:b").unwrap(),
            ("Authorization".to_owned(), "Bearer a:b".to_owned())
        );
        assert!(header("no-colon").is_err());
        assert!(header(": x").is_err());
        assert_eq!(
            timeout("1.5").unwrap(),
            Timeout(Some(Duration::from_millis(1500)))
        );
        assert_eq!(timeout("0").unwrap(), Timeout(None));
        assert!(timeout("-1").is_err());
        assert!(timeout("soon").is_err());
    }
}
