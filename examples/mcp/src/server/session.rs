//! A classic-generation session: what `initialize` settled, the log level,
//! the resource subscriptions, and the way to send the client what no
//! request asked for. One per stdio process (or stream connection), one
//! per `Mcp-Session-Id` on Streamable HTTP.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::sync::broadcast;

use super::events::Change;
use super::peer::Peer;
use crate::ProtocolVersion;
use crate::types::{ClientCapabilities, Implementation, LoggingLevel, ResourceUpdatedParams};

/// Who the client is and what it can do, for one request.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClientState {
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) info: Option<Implementation>,
}

/// What `initialize` settled.
#[derive(Debug)]
pub(crate) struct Negotiated {
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientState>,
}

/// One classic session.
#[derive(Default)]
pub(crate) struct Session {
    negotiated: OnceLock<Negotiated>,
    log_level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<BTreeSet<String>>,
    /// Where messages no request asked for go (set by the transport, or by
    /// the first request on a two-way connection).
    outlet: OnceLock<Peer>,
}

impl Session {
    /// Records what `initialize` settled; `false` if it was already.
    pub(crate) fn initialize(&self, negotiated: Negotiated) -> bool {
        self.negotiated.set(negotiated).is_ok()
    }

    /// What `initialize` settled, once it has.
    pub(crate) fn negotiated(&self) -> Option<&Negotiated> {
        self.negotiated.get()
    }

    pub(crate) fn is_initialized(&self) -> bool {
        self.negotiated.get().is_some()
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
    }

    /// The least severe level the client wants; `None` until it says.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    pub(crate) fn subscribe(&self, uri: &str) {
        lock(&self.subscriptions).insert(uri.to_owned());
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Sets where unsolicited messages go, if nothing has yet.
    pub(crate) fn set_outlet(&self, peer: Peer) {
        let _ = self.outlet.set(peer);
    }

    /// Forwards the server's changes this session should hear of to its
    /// outlet, from a task that ends with the session or its outlet.
    pub(crate) fn forward(self: &Arc<Self>, mut changes: broadcast::Receiver<Change>) {
        let session = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let change = match changes.recv().await {
                    Ok(change) => change,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "a session missed changes");
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if !forward_one(&session, &change).await {
                    return;
                }
            }
        });
    }
}

/// Sends `change` to the session's client if it wants it; `false` once the
/// session or its outlet is gone.
async fn forward_one(session: &Weak<Session>, change: &Change) -> bool {
    let Some(session) = session.upgrade() else {
        return false;
    };
    let Some(outlet) = session.outlet.get().filter(|peer| peer.is_reachable()) else {
        return true;
    };
    let sent = match change {
        Change::ResourceUpdated(uri) if session.is_subscribed(uri) => {
            let params = ResourceUpdatedParams {
                uri: uri.clone(),
                meta: None,
            };
            outlet
                .notify("notifications/resources/updated", &params)
                .await
        }
        Change::ResourceUpdated(_) => Ok(()),
        list => outlet.notify(list.method(), &serde_json::json!({})).await,
    };
    match sent {
        Ok(()) => true,
        Err(typed_rpc::ClientError::Transport(err))
            if err.kind() == typed_rpc::client::TransportErrorKind::Closed =>
        {
            false
        }
        Err(err) => {
            tracing::debug!(%err, "a change could not be sent to a session's client");
            true
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
