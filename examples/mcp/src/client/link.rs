//! The way from a client to its server: a child process's stdio or
//! Streamable HTTP. In the 2026-07-28 generation it adds the protocol's
//! fields to every request's `_meta`, so every call of the typed client
//! stands alone as that generation asks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use typed_rpc::ClientError;
use typed_rpc::client::{OutgoingRequest, Params, Transport};
use typed_rpc::transport::Connection;
use typed_rpc::transport::stream::ChildProcess;

use super::http::HttpLink;
use crate::ProtocolVersion;
use crate::types::{ClientCapabilities, Implementation, meta_keys};

/// How long connecting waits for the classic session's stream to open.
const STREAM_OPENING: Duration = Duration::from_secs(5);

/// The way to a server.
pub struct Link {
    way: Way,
    /// The 2026-07-28 protocol fields every request carries; `None` in
    /// the classic generation.
    meta: Mutex<Option<Arc<Map<String, Value>>>>,
}

enum Way {
    Child {
        connection: Connection,
        /// The child process, when the link spawned it (boxed: the link
        /// holds either this or an HTTP link).
        child: Box<tokio::sync::Mutex<Option<ChildProcess>>>,
    },
    Http(Arc<HttpLink>),
}

/// The protocol fields of the 2026-07-28 generation, for every request.
pub(crate) fn protocol_meta(
    info: &Implementation,
    capabilities: &ClientCapabilities,
) -> Arc<Map<String, Value>> {
    let mut meta = Map::new();
    meta.insert(
        meta_keys::PROTOCOL_VERSION.into(),
        ProtocolVersion::LATEST.as_str().into(),
    );
    meta.insert(meta_keys::CLIENT_CAPABILITIES.into(), json!(capabilities));
    meta.insert(meta_keys::CLIENT_INFO.into(), json!(info));
    Arc::new(meta)
}

impl Link {
    pub(crate) fn child(child: ChildProcess, timeout: Option<Duration>) -> Self {
        Link {
            way: Way::Child {
                connection: child.connection().clone().with_timeout(timeout),
                child: Box::new(tokio::sync::Mutex::new(Some(child))),
            },
            meta: Mutex::new(None),
        }
    }

    /// A link over a connection of this process (an in-memory stream).
    pub(crate) fn connection(connection: Connection, timeout: Option<Duration>) -> Self {
        Link {
            way: Way::Child {
                connection: connection.with_timeout(timeout),
                child: Box::new(tokio::sync::Mutex::new(None)),
            },
            meta: Mutex::new(None),
        }
    }

    pub(crate) fn http(link: HttpLink) -> Self {
        Link {
            way: Way::Http(Arc::new(link)),
            meta: Mutex::new(None),
        }
    }

    /// Speaks the 2026-07-28 generation, `meta` on every request.
    pub(crate) fn go_stateless(&self, meta: Arc<Map<String, Value>>) {
        *lock(&self.meta) = Some(meta);
        if let Way::Http(link) = &self.way {
            link.set_version(ProtocolVersion::LATEST.as_str(), true);
        }
    }

    /// Back to the classic generation, before `initialize`.
    pub(crate) fn go_classic(&self) {
        *lock(&self.meta) = None;
        if let Way::Http(link) = &self.way {
            link.set_version(ProtocolVersion::LATEST_CLASSIC.as_str(), false);
        }
    }

    /// Speaks the classic `version` `initialize` settled.
    pub(crate) fn speak(&self, version: ProtocolVersion) {
        if let Way::Http(link) = &self.way {
            link.set_version(version.as_str(), false);
        }
    }

    /// Over HTTP, opens the classic session's own stream, waiting (a few
    /// seconds at most) until the server has answered: what the server
    /// sent there before it was open would be lost.
    pub(crate) async fn listen(&self) {
        if let Way::Http(link) = &self.way {
            let _ = tokio::time::timeout(STREAM_OPENING, link.listen()).await;
        }
    }

    /// Learns which arguments of the tool `name` travel in headers too
    /// (over HTTP).
    pub(crate) fn learn(&self, name: &str, mirrored: Vec<crate::mirrored::Mirrored>) {
        if let Way::Http(link) = &self.way {
            link.learn(name, mirrored);
        }
    }

    /// `request`'s params with the protocol fields in `_meta`, when the
    /// generation wants them.
    fn with_meta(&self, request: &OutgoingRequest<'_>) -> Result<Option<Params>, ClientError> {
        let Some(meta) = lock(&self.meta).clone() else {
            return Ok(None);
        };
        let mut params: Map<String, Value> = match request.params() {
            Some(params) => serde_json::from_str(params.as_json()).map_err(ClientError::Encode)?,
            None => Map::new(),
        };
        let own = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            for (key, value) in meta.iter() {
                own.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        Params::from_value(&params).map(Some)
    }

    pub(crate) async fn request(
        &self,
        request: OutgoingRequest<'_>,
    ) -> Result<String, ClientError> {
        let params = self.with_meta(&request)?;
        let request = match &params {
            Some(params) => OutgoingRequest::new(request.method(), Some(params)),
            None => request,
        };
        let response = self.send(request).await?;
        // Refused for a version the server says it speaks (another process
        // behind the same address, one just upgraded): once more.
        match params.is_some() && refuses_our_version(&response) {
            true => self.send(request).await,
            false => Ok(response),
        }
    }

    async fn send(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        match &self.way {
            Way::Child { connection, .. } => connection.send_request(request).await,
            Way::Http(link) => link.request(request).await,
        }
    }

    pub(crate) async fn notify(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        match &self.way {
            Way::Child { connection, .. } => connection.send_notification(notification).await,
            Way::Http(link) => link.notify(notification).await,
        }
    }

    /// Ends the connection: closes the child's stdin and waits for it to
    /// exit (killing it after five seconds), or ends the HTTP session.
    pub(crate) async fn close(&self) {
        match &self.way {
            Way::Child { connection, child } => match child.lock().await.take() {
                Some(child) => drop(child.close().await),
                None => connection.close(),
            },
            Way::Http(link) => link.close().await,
        }
    }
}

/// Whether `response` is a `-32022` (unsupported protocol version) whose
/// list of the server's versions holds the one this client sends.
fn refuses_our_version(response: &str) -> bool {
    #[derive(Deserialize)]
    struct Response {
        error: Option<Refusal>,
    }
    #[derive(Deserialize)]
    struct Refusal {
        code: i64,
        data: Option<Supported>,
    }
    #[derive(Deserialize)]
    struct Supported {
        supported: Vec<String>,
    }
    let Ok(Response { error: Some(error) }) = serde_json::from_str(response) else {
        return false;
    };
    error.code == crate::error::code::UNSUPPORTED_PROTOCOL_VERSION
        && error.data.is_some_and(|data| {
            data.supported
                .iter()
                .any(|version| version == ProtocolVersion::LATEST.as_str())
        })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
