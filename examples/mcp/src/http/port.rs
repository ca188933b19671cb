//! The way back to the client of a Streamable HTTP request: notifications
//! and the server's own requests go on the request's event stream (or the
//! session's `GET` stream), the client's answers come back as `POST`s.

use std::sync::Arc;

use typed_rpc::ClientError;
use typed_rpc::client::{OutgoingRequest, Params, TransportError, TransportErrorKind};

use super::events::EventStream;
use super::sessions::HttpSession;
use crate::server::{BoxFuture, HOST_CALL_TIMEOUT, Port};

/// A port onto one event stream.
pub(crate) struct StreamPort {
    stream: Arc<EventStream>,
    /// The classic session whose client answers the server's requests;
    /// `None` on the 2026-07-28 generation, which sends none.
    session: Option<Arc<HttpSession>>,
}

impl StreamPort {
    pub(crate) fn new(stream: Arc<EventStream>, session: Option<Arc<HttpSession>>) -> Self {
        StreamPort { stream, session }
    }
}

fn closed() -> ClientError {
    ClientError::Transport(TransportError::new(TransportErrorKind::Closed))
}

impl Port for StreamPort {
    fn notify<'a>(
        &'a self,
        method: &'a str,
        params: &'a Params,
    ) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            let text = OutgoingRequest::new(method, Some(params)).to_text(None);
            match self.stream.send(Arc::from(text)).await {
                true => Ok(()),
                false => Err(closed()),
            }
        })
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Option<&'a Params>,
    ) -> BoxFuture<'a, Result<String, ClientError>> {
        Box::pin(async move {
            let Some(session) = &self.session else {
                return Err(ClientError::Rpc(typed_rpc::ErrorObject::new(
                    typed_rpc::code::INTERNAL_ERROR,
                    "the 2026-07-28 generation sends the client no requests",
                )));
            };
            let (id, answer) = session.expect_answer();
            let mut pending = Pending {
                session,
                stream: &self.stream,
                id,
                answered: false,
            };
            let text = OutgoingRequest::new(method, params).to_text(Some(id));
            if !self.stream.send(Arc::from(text)).await {
                return Err(closed());
            }
            let answer = tokio::time::timeout(HOST_CALL_TIMEOUT, answer).await;
            pending.answered = true;
            match answer {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(_)) => Err(closed()),
                Err(_) => {
                    pending.answered = false;
                    Err(ClientError::Transport(TransportError::new(
                        TransportErrorKind::Timeout,
                    )))
                }
            }
        })
    }
}

/// A call of the server waiting for the client's answer: given up on (the
/// handler dropped, or the wait timed out), it is forgotten and the
/// client told with `notifications/cancelled`.
struct Pending<'a> {
    session: &'a HttpSession,
    stream: &'a EventStream,
    id: u64,
    answered: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.session.forget_call(self.id);
        if !self.answered {
            let cancel = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{}}}}}"#,
                self.id
            );
            self.stream.send_now(Arc::from(cancel));
        }
    }
}
