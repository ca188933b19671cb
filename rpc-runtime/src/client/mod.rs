//! The client core: params encoding, the transport interface and reply decoding.
//!
//! A generated `FooClient<T>` is a thin typed layer over any [`Transport`]:
//! it encodes each call's arguments as [`Params`], hands the transport an
//! [`OutgoingRequest`], and decodes the response text it gets back.

mod any;
mod batch;
mod call_error;
mod error;
pub(crate) mod error_of;
mod in_process;
mod local_items;
mod notify;
mod params;
mod retry;
mod span;
mod subscription;
mod typed_batch;

use std::fmt::Write as _;
use std::future::Future;

use serde::de::DeserializeOwned;

pub use any::AnyTransport;
pub use batch::{Batch, BatchResponse, BatchSlot};
pub use call_error::{CallError, UnknownError};
pub(crate) use error::closed;
pub use error::{ClientError, DecodeError, HttpError, TransportError, TransportErrorKind};
pub use in_process::InProcess;
pub use params::{Params, ParamsBuilder};
pub use retry::RetryPolicy;
pub(crate) use span::traced;
pub(crate) use subscription::cannot_stream;
#[cfg(any(feature = "http", feature = "duplex"))]
pub(crate) use subscription::item_error;
pub use subscription::{RawItems, Subscription};
pub use typed_batch::{BatchCall, BatchReplies};

use crate::Response;

/// Carries messages to a server and brings back its replies.
///
/// A transport assigns request ids and matches replies to requests; callers
/// only see the response text. Implementations: [`InProcess`] (a router in
/// the same process) and the network transports behind cargo features.
///
/// A transport of your own, here one that counts the calls it delegates:
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// use typed_rpc::client::{ClientError, ClientExt, InProcess, OutgoingRequest, Transport};
/// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
///
/// struct Counting {
///     inner: InProcess,
///     sent: AtomicUsize,
/// }
///
/// impl Transport for Counting {
///     async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
///         self.sent.fetch_add(1, Ordering::Relaxed);
///         self.inner.send_request(request).await
///     }
///
///     async fn send_notification(&self, notification: OutgoingRequest<'_>) -> Result<(), ClientError> {
///         self.sent.fetch_add(1, Ordering::Relaxed);
///         self.inner.send_notification(notification).await
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let transport = Counting { inner: InProcess::new(Router::new(Nothing)), sent: AtomicUsize::new(0) };
/// transport.notify("ping", None).await.unwrap();
/// assert!(transport.call::<u64>("nope", None).await.is_err());
/// assert_eq!(transport.sent.load(Ordering::Relaxed), 2);
/// # });
/// ```
pub trait Transport: Send + Sync {
    /// Sends a request and resolves to the text of its response.
    fn send_request(
        &self,
        request: OutgoingRequest<'_>,
    ) -> impl Future<Output = Result<String, ClientError>> + Send;

    /// Sends a notification; resolves once it is sent.
    fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> impl Future<Output = Result<(), ClientError>> + Send;

    /// Sends a batch and matches the replies to its requests.
    ///
    /// The default sends each entry on its own, one after another; the
    /// transports of this crate send one batch message.
    fn send_batch(
        &self,
        batch: &Batch,
    ) -> impl Future<Output = Result<BatchResponse, ClientError>> + Send {
        async move {
            let mut replies = Vec::with_capacity(batch.request_count());
            for (request, notification) in batch.entries() {
                if notification {
                    self.send_notification(request).await?;
                } else {
                    replies.push(self.send_request(request).await.ok());
                }
            }
            Ok(BatchResponse::from_replies(replies))
        }
    }

    /// Sends a call of a streaming method, which streams as `stream` says
    /// on two-way transports, and resolves to its items once the server
    /// has accepted it (an error the server answers at once is this
    /// future's error).
    ///
    /// The default refuses: HTTP streams with Server-Sent Events, and
    /// WebSocket, TCP and stdio connections with subscriptions.
    fn send_stream(
        &self,
        request: OutgoingRequest<'_>,
        stream: &'static crate::StreamInfo,
    ) -> impl Future<Output = Result<RawItems, ClientError>> + Send {
        let _ = (request, stream);
        std::future::ready(Err(subscription::cannot_stream()))
    }
}

/// A request or notification about to be sent, before it has an id.
#[derive(Clone, Copy, Debug)]
pub struct OutgoingRequest<'a> {
    method: &'a str,
    params: Option<&'a Params>,
    idempotent: bool,
}

impl<'a> OutgoingRequest<'a> {
    /// A call of `method` with `params` (absent when `None`), not marked
    /// idempotent.
    pub fn new(method: &'a str, params: Option<&'a Params>) -> Self {
        OutgoingRequest {
            method,
            params,
            idempotent: false,
        }
    }

    /// Marks the call safe to send more than once (or not): only such calls
    /// are retried by a transport with a [`RetryPolicy`]. Generated clients
    /// set it from [`MethodInfo::is_idempotent`](crate::MethodInfo::is_idempotent).
    ///
    /// ```
    /// use typed_rpc::client::OutgoingRequest;
    ///
    /// let request = OutgoingRequest::new("eth_blockNumber", None).idempotent(true);
    /// assert!(request.is_idempotent());
    /// ```
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// Whether the call is safe to send more than once.
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The method name.
    pub fn method(&self) -> &'a str {
        self.method
    }

    /// The params, if any.
    pub fn params(&self) -> Option<&'a Params> {
        self.params
    }

    /// The message text: a request with `id`, or a notification when `id` is `None`.
    ///
    /// ```
    /// use typed_rpc::client::{OutgoingRequest, Params};
    ///
    /// let params = Params::from_value(&(42, 23)).unwrap();
    /// let request = OutgoingRequest::new("subtract", Some(&params));
    /// assert_eq!(request.to_text(Some(1)), r#"{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}"#);
    /// assert_eq!(request.to_text(None), r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23]}"#);
    /// ```
    pub fn to_text(&self, id: Option<u64>) -> String {
        let params = self.params.map(Params::as_json);
        let mut text = String::with_capacity(48 + self.method.len() + params.map_or(0, str::len));
        text.push_str(r#"{"jsonrpc":"2.0","#);
        if let Some(id) = id {
            // Writing to a `String` cannot fail.
            let _ = write!(text, r#""id":{id},"#);
        }
        text.push_str(r#""method":"#);
        push_json_string(&mut text, self.method);
        if let Some(params) = params {
            text.push_str(r#","params":"#);
            text.push_str(params);
        }
        text.push('}');
        text
    }
}

/// Appends `s` as a JSON string literal.
fn push_json_string(out: &mut String, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        // `str` always serializes.
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    }
}

/// Untyped calls on any transport, for methods without a trait.
///
/// ```
/// use typed_rpc::client::{ClientExt, InProcess, Params};
/// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
/// # struct Nothing;
/// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
/// # impl RpcService for Nothing {
/// #     fn info(&self) -> &'static ServiceInfo { &INFO }
/// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
/// # }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let client = InProcess::new(Router::new(Nothing));
/// let err = client.call::<u64>("eth_blockNumber", None).await.unwrap_err();
/// assert_eq!(err.rpc_error().unwrap().code(), -32601);
/// # });
/// ```
pub trait ClientExt: Transport {
    /// Calls `method` and decodes its result as `R`.
    fn call<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<Params>,
    ) -> impl Future<Output = Result<R, ClientError>> + Send {
        async move {
            let reply = self
                .send_request(OutgoingRequest::new(method, params.as_ref()))
                .await?;
            decode_result(&reply)
        }
    }

    /// Sends the notification `method`.
    fn notify(
        &self,
        method: &str,
        params: Option<Params>,
    ) -> impl Future<Output = Result<(), ClientError>> + Send {
        async move {
            self.send_notification(OutgoingRequest::new(method, params.as_ref()))
                .await
        }
    }
}

impl<T: Transport + ?Sized> ClientExt for T {}

/// Decodes response text into its result, or the error the server sent.
pub fn decode_result<R: DeserializeOwned>(reply: &str) -> Result<R, ClientError> {
    let response: Response<'_> = serde_json::from_str(reply)
        .map_err(|err| ClientError::Decode(DecodeError::invalid_response(err)))?;
    let result = response.into_result().map_err(ClientError::Rpc)?;
    serde_json::from_str(result.get())
        .map_err(|err| ClientError::Decode(DecodeError::result_type(err)))
}
