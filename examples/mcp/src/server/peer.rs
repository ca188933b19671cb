//! The client as a request's handler reaches it: where notifications and
//! the server's own requests go, whatever the transport.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use typed_rpc::client::{OutgoingRequest, Params, Transport};
use typed_rpc::transport::Connection;
use typed_rpc::{ClientError, Context};

/// A boxed future, as the object-safe [`Port`] returns them.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How long the server waits for the client to answer one of its requests
/// (a user deciding on an elicitation can take a while).
pub(crate) const HOST_CALL_TIMEOUT: Duration = Duration::from_secs(600);

/// A way to the client: a two-way connection (stdio, TCP, WebSocket), or a
/// Streamable HTTP request's event stream.
pub(crate) trait Port: Send + Sync + 'static {
    /// Sends the notification `method`.
    fn notify<'a>(
        &'a self,
        method: &'a str,
        params: &'a Params,
    ) -> BoxFuture<'a, Result<(), ClientError>>;

    /// Sends the request `method` and resolves to its response's text.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a Params>,
    ) -> BoxFuture<'a, Result<String, ClientError>>;
}

impl Port for Connection {
    fn notify<'a>(
        &'a self,
        method: &'a str,
        params: &'a Params,
    ) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(self.send_notification(OutgoingRequest::new(method, Some(params))))
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a Params>,
    ) -> BoxFuture<'a, Result<String, ClientError>> {
        Box::pin(self.send_request(OutgoingRequest::new(method, params)))
    }
}

/// The client of a request, as far as the request's handler can reach it.
#[derive(Clone, Default)]
pub(crate) struct Peer(Option<Arc<dyn Port>>);

impl Peer {
    /// A peer reached through `port`.
    pub(crate) fn new(port: Arc<dyn Port>) -> Self {
        Peer(Some(port))
    }

    /// The peer of the request `cx` describes: the port a transport of this
    /// crate put in its extensions, or its two-way connection.
    pub(crate) fn of(cx: &Context) -> Self {
        if let Some(peer) = cx.extensions().get::<Peer>() {
            return peer.clone();
        }
        match cx.connection() {
            Some(connection) => {
                let connection = connection.clone().with_timeout(HOST_CALL_TIMEOUT);
                Peer(Some(Arc::new(connection)))
            }
            None => Peer(None),
        }
    }

    /// Whether the client can be reached at all.
    pub(crate) fn is_reachable(&self) -> bool {
        self.0.is_some()
    }

    /// Sends the notification `method` with `params`.
    pub(crate) async fn notify<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let params = Params::from_value(params)?;
        self.notify_params(method, &params).await
    }

    /// Sends the notification `method` with `params` already encoded.
    pub(crate) async fn notify_params(
        &self,
        method: &str,
        params: &Params,
    ) -> Result<(), ClientError> {
        let port = self.0.as_ref().ok_or_else(unreachable)?;
        port.notify(method, params).await
    }

    /// Sends the request `method` and resolves to its response's text.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Option<&Params>,
    ) -> Result<String, ClientError> {
        let port = self.0.as_ref().ok_or_else(unreachable)?;
        port.request(method, params).await
    }
}

/// The error of a call to a client that cannot be reached.
fn unreachable() -> ClientError {
    ClientError::Rpc(typed_rpc::ErrorObject::new(
        typed_rpc::code::INTERNAL_ERROR,
        "the client cannot be reached on this transport",
    ))
}
