//! A transport to a router in the same process.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{
    Batch, BatchResponse, ClientError, OutgoingRequest, Transport, TransportError,
    TransportErrorKind,
};
use crate::Router;

/// Calls a [`Router`] in the same process, through the same message text a
/// network transport would carry.
///
/// Useful in tests, and to call a service from inside its own process with
/// the same typed client that remote callers use.
///
/// ```
/// use typed_rpc::client::{ClientExt, InProcess};
/// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let transport = InProcess::new(Router::new(Nothing));
/// transport.notify("anything", None).await.unwrap();
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct InProcess {
    router: Router,
    next_id: Arc<AtomicU64>,
}

impl InProcess {
    /// A transport that delivers every message to `router`.
    pub fn new(router: Router) -> Self {
        InProcess {
            router,
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl Transport for InProcess {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let text = request.to_text(Some(id));
        // A request always gets an answer from the router; `None` would mean
        // the router took it for a notification, which `to_text` rules out.
        self.router
            .handle(text.as_bytes())
            .await
            .ok_or_else(|| TransportError::new(TransportErrorKind::Closed).into())
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        self.router
            .handle(notification.to_text(None).as_bytes())
            .await;
        Ok(())
    }

    async fn send_batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        let requests = batch.request_count();
        let first_id = self.next_id.fetch_add(requests as u64, Ordering::Relaxed);
        match self.router.handle(batch.to_text(first_id).as_bytes()).await {
            Some(reply) => BatchResponse::from_reply(requests, first_id, &reply),
            None => Ok(BatchResponse::from_replies(Vec::new())),
        }
    }
}
