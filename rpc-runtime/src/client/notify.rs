//! [`Context::notify`]: a handler sends its caller a notification, a client
//! message, through the port its context holds to the peer.

use super::{ClientError, OutgoingRequest, Params, cannot_stream, closed};
use crate::Context;

impl Context {
    /// Sends the caller a notification while its request is served: on
    /// its connection over WebSocket, TCP and stdio; over HTTP, as a
    /// Server-Sent Event when the client's `Accept` names
    /// `text/event-stream` (the reply then follows as the last event: MCP's
    /// progress notifications over Streamable HTTP). A client that accepts
    /// events only through a wildcard (`*/*`, as curl sends) expects a plain
    /// JSON reply from a method that does not stream, and gets one. What is
    /// sent before the handler returns arrives before its reply. Fails where
    /// the transport cannot carry it (plain HTTP, in-process) or the caller
    /// has gone; it waits while the caller is slow to read.
    ///
    /// ```
    /// use typed_rpc::{Context, TransportKind};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let cx = Context::new(TransportKind::InProcess);
    /// assert!(cx.notify("progress", &serde_json::json!({"step": 1})).await.is_err());
    /// # });
    /// ```
    pub async fn notify<P: serde::Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<(), ClientError> {
        let params = Params::from_value(params)?;
        let Some(peer) = self.peer().filter(|peer| peer.takes_notifications()) else {
            return Err(cannot_stream());
        };
        let text = OutgoingRequest::new(method, Some(&params)).to_text(None);
        peer.notify(text).await.map_err(|_| closed())
    }
}
