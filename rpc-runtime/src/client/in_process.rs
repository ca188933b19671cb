//! A transport to a router in the same process, with the caller a test needs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{
    Batch, BatchResponse, ClientError, OutgoingRequest, RawItems, Transport, TransportError,
    TransportErrorKind,
};
use crate::context::ConnectionExtensions;
use crate::streaming::Handover;
use crate::{Context, Router, TransportKind};

/// Calls a [`Router`] in the same process, through the same message text a
/// network transport would carry.
///
/// The way to test a service with its own typed client: every call goes
/// through the router's layers to the handlers, with a [`Context`] that
/// says who calls. The caller is set once, on the client: HTTP
/// [headers](InProcess::header) for layers that read them, call
/// [extensions](InProcess::extension) as a layer would have set them, or a
/// whole [context](InProcess::context) (a transport, a peer address). Each
/// client is one connection: its [connection
/// extensions](InProcess::connection_extensions) are shared by all its
/// calls (and its clones), so a `login` call holds for the calls after it,
/// as on a TCP or WebSocket connection. A streaming method's items are
/// read straight from the handler's stream, as fast as the test reads
/// them.
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
    /// What every call's context starts as.
    context: Arc<Context>,
}

impl InProcess {
    /// A transport that delivers every message to `router`, as a caller
    /// nothing is known about (`TransportKind::InProcess`) on a connection
    /// of its own.
    pub fn new(router: Router) -> Self {
        let context = Context::new(TransportKind::InProcess)
            .with_connection_extensions(ConnectionExtensions::new());
        InProcess {
            router,
            next_id: Arc::new(AtomicU64::new(1)),
            context: Arc::new(context),
        }
    }

    /// Every call starts from `context`: its transport, peer address,
    /// headers and extensions, as a transport would have made it. The
    /// client's connection extensions are kept unless `context` has its
    /// own.
    ///
    /// ```
    /// use typed_rpc::client::InProcess;
    /// use typed_rpc::{Context, TransportKind};
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// // Calls that look like a TCP peer's at 192.0.2.7.
    /// let peer = Context::new(TransportKind::Tcp).with_remote_addr("192.0.2.7:4000".parse().unwrap());
    /// let client = InProcess::new(Router::new(Nothing)).context(peer);
    /// ```
    pub fn context(mut self, context: Context) -> Self {
        let connection = self.connection_extensions().clone();
        let context = match context.connection_extensions() {
            Some(_) => context,
            None => context.with_connection_extensions(connection),
        };
        self.context = Arc::new(context);
        self
    }

    /// Every call carries the HTTP header `name: value`, for the layers
    /// and handlers that read [`Context::headers`] (bearer authentication,
    /// an API key). Setting a header twice sends both values.
    ///
    /// # Panics
    ///
    /// If `name` is no valid header name or `value` no valid header value,
    /// as [`HeaderValue::from_static`](http::HeaderValue::from_static)
    /// panics: both are the test's own literals. [`headers`](Self::headers)
    /// takes values checked already.
    ///
    /// ```
    /// use typed_rpc::client::InProcess;
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// let alice = InProcess::new(Router::new(Nothing)).header("authorization", "Bearer alice-token");
    /// ```
    #[cfg(feature = "http")]
    pub fn header(self, name: &str, value: &str) -> Self {
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .unwrap_or_else(|_| panic!("`{name}` is not a valid HTTP header name"));
        let value = http::HeaderValue::from_str(value)
            .unwrap_or_else(|_| panic!("the value of `{name}` is not a valid HTTP header value"));
        let mut headers = http::HeaderMap::new();
        headers.append(name, value);
        self.headers(headers)
    }

    /// Every call carries the HTTP headers `headers` too.
    #[cfg(feature = "http")]
    pub fn headers(mut self, headers: http::HeaderMap) -> Self {
        let context = Arc::make_mut(&mut self.context);
        let mut all = context.headers().cloned().unwrap_or_default();
        for (name, value) in &headers {
            all.append(name, value.clone());
        }
        *context = std::mem::take(context).with_headers(all);
        self
    }

    /// Every call's [`Context::extensions`] hold `value`, as if a layer
    /// had inserted it: a handler that reads the caller (a tenant, a user)
    /// is tested without the layer that sets it.
    ///
    /// ```
    /// use typed_rpc::client::InProcess;
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// struct Tenant(u32);
    ///
    /// let tenant_7 = InProcess::new(Router::new(Nothing)).extension(Tenant(7));
    /// ```
    pub fn extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.context)
            .extensions_mut()
            .insert(value);
        self
    }

    /// The extensions of this client's connection, shared by all its calls
    /// and clones: insert a value to start as a caller who has logged in
    /// already, or read what a `login` call stored.
    pub fn connection_extensions(&self) -> &ConnectionExtensions {
        // Set in `new`, and kept by `context`.
        self.context
            .connection_extensions()
            .expect("an in-process client has connection extensions")
    }
}

impl Transport for InProcess {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let text = request.to_text(Some(id));
        // A request always gets an answer from the router; `None` would mean
        // the router took it for a notification, which `to_text` rules out.
        self.router
            .handle_with(text.as_bytes(), &self.context)
            .await
            .ok_or_else(|| TransportError::new(TransportErrorKind::Closed).into())
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        let text = notification.to_text(None);
        self.router
            .handle_with(text.as_bytes(), &self.context)
            .await;
        Ok(())
    }

    /// Runs the call in this process and reads its items straight from the
    /// handler's stream, as fast as they are read; dropping them drops the
    /// stream.
    async fn send_stream(
        &self,
        request: OutgoingRequest<'_>,
        _: &'static crate::StreamInfo,
    ) -> Result<RawItems, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let text = request.to_text(Some(id));
        let handover = Handover::default();
        let context = Context::clone(&self.context).with_handover(handover.clone());
        let reply = self.router.handle_with(text.as_bytes(), &context).await;
        match (handover.take(), reply) {
            (Some(items), _) => Ok(super::local_items::raw_items(items)),
            // Refused, or failed before its stream: the reply says why.
            (None, Some(reply)) => {
                super::decode_result::<Box<serde_json::value::RawValue>>(&reply)?;
                Err(super::cannot_stream())
            }
            (None, None) => Err(TransportError::new(TransportErrorKind::Closed).into()),
        }
    }

    async fn send_batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        let requests = batch.request_count();
        let first_id = self.next_id.fetch_add(requests as u64, Ordering::Relaxed);
        let text = batch.to_text(first_id);
        match self
            .router
            .handle_with(text.as_bytes(), &self.context)
            .await
        {
            Some(reply) => BatchResponse::from_reply(requests, first_id, &reply),
            None => Ok(BatchResponse::from_replies(Vec::new())),
        }
    }
}
