//! Generated typed batches: the calls gathered, then sent as one message.

use std::future::Future;
use std::pin::Pin;

use super::Ty;
use crate::MethodInfo;
use crate::client::{
    Batch, BatchCall, BatchReplies, BatchResponse, ClientError, Params, Transport,
};

/// What awaiting a generated batch gives: its replies, or why the batch as
/// a whole failed.
pub type BatchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<BatchReplies, ClientError>> + Send + 'a>>;

/// What a generated batch holds: the calls so far, why each request left
/// out could not be sent, and the first notification whose params could
/// not be serialized.
pub struct BatchState<'a, T: ?Sized> {
    transport: &'a T,
    batch: Batch,
    unsent_requests: Vec<String>,
    unsent: Option<ClientError>,
}

impl<'a, T: Transport + ?Sized + 'a> BatchState<'a, T> {
    /// An empty batch to send over `transport`.
    pub fn new(transport: &'a T) -> Self {
        BatchState {
            transport,
            batch: Batch::new(),
            unsent_requests: Vec::new(),
            unsent: None,
        }
    }

    /// Adds a request of `method`, whose return type `_result_type` names;
    /// params that could not be serialized leave it out, and its handle
    /// holds the error.
    pub fn request<R>(
        &mut self,
        method: &'static MethodInfo,
        _result_type: Ty<R>,
        params: Result<Option<Params>, ClientError>,
    ) -> BatchCall<R> {
        match params {
            Ok(params) => {
                let index = self.batch.request_count();
                // The slot's type is the handle's; only the position is kept.
                let _ = self.batch.request::<()>(method.name(), params);
                BatchCall::sent(index)
            }
            Err(err) => {
                // Params fail only to serialize: serde's reason is kept.
                let reason = match err {
                    ClientError::Encode(err) => err.to_string(),
                    other => other.to_string(),
                };
                self.unsent_requests.push(reason);
                BatchCall::unsent(self.unsent_requests.len() - 1)
            }
        }
    }

    /// Adds the notification `method`.
    pub fn notify(
        &mut self,
        method: &'static MethodInfo,
        params: Result<Option<Params>, ClientError>,
    ) {
        match params {
            Ok(params) => self.batch.notify(method.name(), params),
            Err(err) => {
                self.unsent.get_or_insert(err);
            }
        }
    }

    /// Sends the batch as one message, if it holds anything.
    pub fn send(self) -> BatchFuture<'a> {
        Box::pin(self.send_now())
    }

    async fn send_now(self) -> Result<BatchReplies, ClientError> {
        if let Some(err) = self.unsent {
            return Err(err);
        }
        let response = match self.batch.is_empty() {
            true => BatchResponse::from_replies(Vec::new()),
            false => self.transport.send_batch(&self.batch).await?,
        };
        Ok(BatchReplies::new(response, self.unsent_requests))
    }
}
