//! The client side: from an agent's card to a typed [`A2aClient`] that sends
//! `A2A-Version: 1.0` and the caller's bearer token on every request.

use typed_rpc::transport::http::{HttpClient, HttpConfigError};

use crate::api::A2aClient;
use crate::types::AgentCard;

/// Why no client could be made for a card.
#[derive(Debug)]
pub enum ConnectError {
    /// The card lists no JSON-RPC interface that speaks A2A 1.0.
    NoJsonRpcInterface,
    /// The interface's URL or the token do not make a valid HTTP client.
    Config(HttpConfigError),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::NoJsonRpcInterface => {
                f.write_str("the card has no A2A 1.0 JSON-RPC interface")
            }
            ConnectError::Config(err) => write!(f, "cannot reach the interface: {err}"),
        }
    }
}

impl std::error::Error for ConnectError {}

/// A client for the card's A2A 1.0 JSON-RPC interface. `builder` is handed
/// the HTTP client's builder for timeouts and a retry policy: `SendMessage`
/// is marked idempotent, so a retry policy retries it, with the same
/// `messageId`, which servers de-duplicate on.
pub fn connect(
    card: &AgentCard,
    token: Option<&str>,
    builder: impl FnOnce(
        typed_rpc::transport::http::HttpClientBuilder,
    ) -> typed_rpc::transport::http::HttpClientBuilder,
) -> Result<A2aClient<HttpClient>, ConnectError> {
    let url = card.jsonrpc_url().ok_or(ConnectError::NoJsonRpcInterface)?;
    let mut http = HttpClient::builder(url).header("a2a-version", crate::PROTOCOL_VERSION);
    if let Some(token) = token {
        http = http.header("authorization", &format!("Bearer {token}"));
    }
    let http = builder(http).build().map_err(ConnectError::Config)?;
    Ok(A2aClient::new(http))
}
