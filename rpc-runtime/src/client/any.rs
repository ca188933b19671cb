//! A client transport chosen at run time: any [`Transport`] behind one type.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::{Batch, BatchResponse, ClientError, OutgoingRequest, RawItems, Transport};
use crate::StreamInfo;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How a transport ends its session, given the transport itself.
type Closer<T> = Box<dyn FnOnce(T) -> BoxFuture<'static, ()> + Send + Sync>;

/// Any client transport, its type decided at run time: what
/// `typed_rpc::connect` returns for a URL, and what a program holds
/// when it talks to servers over transports it picks as it runs.
///
/// It is a [`Transport`] itself, so a generated client takes it
/// (`CalculatorClient<AnyTransport>`); each message costs one boxed future
/// more than on the concrete transport. The concrete transports are
/// untouched by it: a program that names `HttpClient` or a `Connection`
/// pays nothing for this type.
///
/// ```
/// use typed_rpc::client::{AnyTransport, ClientExt, InProcess};
/// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let transports = vec![AnyTransport::new(InProcess::new(Router::new(Nothing)))];
/// for transport in &transports {
///     let err = transport.call::<u64>("nope", None).await.unwrap_err();
///     assert_eq!(err.rpc_error().unwrap().code(), -32601);
/// }
/// # });
/// ```
pub struct AnyTransport {
    inner: Box<dyn ErasedTransport>,
}

impl AnyTransport {
    /// Boxes `transport`; [`close`](Self::close) just drops it.
    pub fn new<T: Transport + 'static>(transport: T) -> Self {
        AnyTransport {
            inner: Box::new(Erased {
                transport,
                close: None,
            }),
        }
    }

    /// Boxes `transport` with how its session ends: `close` gets the
    /// transport when [`close`](Self::close) is called (to close a
    /// connection and wait for its end, say).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    ///
    /// use typed_rpc::client::{AnyTransport, InProcess};
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let closed = Arc::new(AtomicBool::new(false));
    /// let seen = closed.clone();
    /// let transport = AnyTransport::with_close(InProcess::new(Router::new(Nothing)), move |_| async move {
    ///     seen.store(true, Ordering::Relaxed);
    /// });
    /// transport.close().await;
    /// assert!(closed.load(Ordering::Relaxed));
    /// # });
    /// ```
    pub fn with_close<T, F>(
        transport: T,
        close: impl FnOnce(T) -> F + Send + Sync + 'static,
    ) -> Self
    where
        T: Transport + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let close: Closer<T> = Box::new(move |transport| Box::pin(close(transport)));
        AnyTransport {
            inner: Box::new(Erased {
                transport,
                close: Some(close),
            }),
        }
    }

    /// Ends the session once what was sent has gone out, as the transport
    /// ends it (`typed_rpc::connect` says how for the transports it opens).
    pub async fn close(self) {
        self.inner.close().await;
    }
}

impl fmt::Debug for AnyTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnyTransport").finish_non_exhaustive()
    }
}

// `async fn`s around the boxed futures: a box lives as long as the shorter
// of `&self` and the request, which an opaque type cannot name, and the
// `async fn`'s future captures both.
impl Transport for AnyTransport {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        self.inner.send_request(request).await
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        self.inner.send_notification(notification).await
    }

    async fn send_batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        self.inner.send_batch(batch).await
    }

    async fn send_stream(
        &self,
        request: OutgoingRequest<'_>,
        stream: &'static StreamInfo,
    ) -> Result<RawItems, ClientError> {
        self.inner.send_stream(request, stream).await
    }
}

/// [`Transport`] as a trait object: each method boxes its future.
trait ErasedTransport: Send + Sync {
    fn send_request<'a>(
        &'a self,
        request: OutgoingRequest<'a>,
    ) -> BoxFuture<'a, Result<String, ClientError>>;

    fn send_notification<'a>(
        &'a self,
        notification: OutgoingRequest<'a>,
    ) -> BoxFuture<'a, Result<(), ClientError>>;

    fn send_batch<'a>(
        &'a self,
        batch: &'a Batch,
    ) -> BoxFuture<'a, Result<BatchResponse, ClientError>>;

    fn send_stream<'a>(
        &'a self,
        request: OutgoingRequest<'a>,
        stream: &'static StreamInfo,
    ) -> BoxFuture<'a, Result<RawItems, ClientError>>;

    fn close(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// A transport and, if it has one, the way its session ends.
struct Erased<T> {
    transport: T,
    close: Option<Closer<T>>,
}

impl<T: Transport + 'static> ErasedTransport for Erased<T> {
    fn send_request<'a>(
        &'a self,
        request: OutgoingRequest<'a>,
    ) -> BoxFuture<'a, Result<String, ClientError>> {
        Box::pin(self.transport.send_request(request))
    }

    fn send_notification<'a>(
        &'a self,
        notification: OutgoingRequest<'a>,
    ) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(self.transport.send_notification(notification))
    }

    fn send_batch<'a>(
        &'a self,
        batch: &'a Batch,
    ) -> BoxFuture<'a, Result<BatchResponse, ClientError>> {
        Box::pin(self.transport.send_batch(batch))
    }

    fn send_stream<'a>(
        &'a self,
        request: OutgoingRequest<'a>,
        stream: &'static StreamInfo,
    ) -> BoxFuture<'a, Result<RawItems, ClientError>> {
        Box::pin(self.transport.send_stream(request, stream))
    }

    fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
        let Erased { transport, close } = *self;
        match close {
            Some(close) => close(transport),
            None => Box::pin(async move { drop(transport) }),
        }
    }
}
