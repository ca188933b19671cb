//! Exit codes by the layer a call failed in, and the failure a command ends with.
//!
//! A script acts on each layer differently: fix its command line (usage),
//! retry later (transport), look at credentials or quotas (HTTP), read the
//! server's error (JSON-RPC), or report a broken server (decode). So every
//! layer has a code of its own.

use typed_rpc::connect::ConnectError;
use typed_rpc::{ClientError, ErrorObject};

use crate::output::Style;

/// Any failure that has no layer of its own.
pub const OTHER: u8 = 1;
/// A bad command line, an unreadable or malformed file, or a call the
/// OpenRPC document does not allow; nothing was sent.
pub const USAGE: u8 = 2;
/// The server could not be reached, the connection was lost, or no reply came in time.
pub const TRANSPORT: u8 = 3;
/// The HTTP server (or a WebSocket handshake) answered with a status other than 2xx.
pub const HTTP: u8 = 4;
/// The server answered with a JSON-RPC error object.
pub const RPC: u8 = 5;
/// The reply was not a JSON-RPC response.
pub const DECODE: u8 = 6;
/// A stream read until Ctrl-C, which unsubscribed (128 + SIGINT, as shells
/// report a program stopped by Ctrl-C).
pub const INTERRUPTED: u8 = 130;

/// The table of exit codes, for `--help` (the guide's `cli` chapter has the same one).
pub const TABLE: &str = "\
Exit codes:
  0  success
  1  any other failure
  2  usage: a bad command line or file, or a call the OpenRPC document refuses (nothing sent)
  3  transport: could not connect, connection lost, or timed out
  4  HTTP: a status other than 2xx (also a refused WebSocket handshake)
  5  JSON-RPC: the server answered with an error object (printed on stderr)
  6  decode: the reply was not a JSON-RPC response
A stream (call --stream) exits 0 when the server ended it, 5 when an error
item ended it, 3 when the connection was lost, 130 on Ctrl-C.";

/// Why a command failed: its exit code and what to tell the user.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    message: String,
    /// The server's error object, printed as JSON so that none of it is lost.
    error: Option<ErrorObject>,
    /// What was being done, said before the error object.
    doing: Option<String>,
}

impl Failure {
    /// A mistake in the command line or in a file it names.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            code: USAGE,
            message: message.into(),
            error: None,
            doing: None,
        }
    }

    /// A stream stopped with Ctrl-C.
    pub fn interrupted() -> Self {
        Failure::with_code(INTERRUPTED, "interrupted: the stream was stopped")
    }

    /// A failure with the given exit code.
    pub fn with_code(code: u8, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            error: None,
            doing: None,
        }
    }

    /// Says what was being done when the failure happened.
    pub fn context(mut self, doing: &str) -> Self {
        self.message = format!("{doing}: {}", self.message);
        self.doing = Some(doing.to_owned());
        self
    }

    /// The process's exit code.
    pub fn exit_code(&self) -> u8 {
        self.code
    }

    /// Prints the failure on stderr: the server's error object as JSON in
    /// `style`, anything else as one line.
    pub fn report(&self, style: Style) {
        match &self.error {
            Some(error) => {
                if let Some(doing) = &self.doing {
                    eprintln!("typed-rpc: {doing}:");
                }
                // Serializing an `ErrorObject` cannot fail: its data is JSON already.
                let json = serde_json::to_string(error).unwrap_or_default();
                eprintln!("{}", style.render(&json));
            }
            None => eprintln!("typed-rpc: {}", self.message),
        }
    }
}

impl From<ClientError> for Failure {
    fn from(err: ClientError) -> Self {
        let code = exit_code(&err);
        match err {
            ClientError::Rpc(error) => Failure {
                code,
                message: error.to_string(),
                error: Some(error),
                doing: None,
            },
            other => Failure {
                code,
                message: with_causes(&other),
                error: None,
                doing: None,
            },
        }
    }
}

impl From<ConnectError> for Failure {
    fn from(err: ConnectError) -> Self {
        match err {
            ConnectError::Failed { url, error } => {
                Failure::from(error).context(&format!("connecting to {url}"))
            }
            invalid => Failure::usage(invalid.to_string()),
        }
    }
}

/// `err` and each cause under it that its own text does not already tell
/// (`could not connect: ...: Connection refused`).
fn with_causes(err: &ClientError) -> String {
    let mut message = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(err) = cause {
        let text = err.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        cause = err.source();
    }
    message
}

/// The exit code of a client error's layer.
pub fn exit_code(err: &ClientError) -> u8 {
    match err {
        ClientError::Transport(_) => TRANSPORT,
        ClientError::Http(_) => HTTP,
        ClientError::Rpc(_) => RPC,
        ClientError::Decode(_) => DECODE,
        // The params came from the command line.
        ClientError::Encode(_) => USAGE,
        _ => OTHER,
    }
}
