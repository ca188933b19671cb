//! Helpers for the code `#[rpc]` generates. Not a public API: anything here
//! may change in any release.
//!
//! Each helper holds logic that would otherwise be repeated in every
//! expansion, so the generated code stays a thin table of calls.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{self, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::{self, ClientError, OutgoingRequest, Params, ParamsBuilder, Transport};
use crate::service::{Call, HandlerFuture, HandlerSlot, IntoResponse, RpcService};
use crate::{DecodeParams, MethodInfo};

pub use crate::params::Whole;

/// Decodes the params of `call` for `method`, then puts the future of
/// `handler` run on them in `slot` and polls it once with `cx`: the first
/// poll of [`RpcService::call_in`] for a method that exists.
#[inline]
pub fn dispatch<'a, A, F, Fut>(
    call: Call<'a>,
    method: &'static MethodInfo,
    handler: F,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>>
where
    A: DecodeParams,
    F: FnOnce(A) -> Fut,
    Fut: Future + Send + 'a,
    Fut::Output: IntoResponse,
{
    Some(match A::decode(call.params(), method) {
        Ok(args) => {
            let running = handler(args);
            // The future keeps only the id of the call: the smaller it is,
            // the less is written into the slot.
            let id = call.id();
            slot.start(async move { running.await.into_response(id?) }, cx)
        }
        Err(err) => Poll::Ready(call.respond_error(&err)),
    })
}

/// [`RpcService::call`] of a service that implements
/// [`RpcService::call_in`]: a boxed future that runs `call_in` when first
/// polled, since that needs the task's context.
pub fn call_boxed<'a, S: RpcService>(
    service: &'a S,
    method: &str,
    call: Call<'a>,
) -> Option<HandlerFuture<'a>> {
    // The name `call_in` answers to, kept by the future.
    let method = service.info().method(method)?.name();
    Some(Box::pin(async move {
        let mut slot = pin!(HandlerSlot::new());
        let first = poll_fn(|cx| Poll::Ready(service.call_in(method, call, slot.as_mut(), cx)));
        match first.await {
            Some(Poll::Ready(reply)) => reply,
            Some(Poll::Pending) => slot.await,
            // `info` and `call_in` know the same methods.
            None => None,
        }
    }))
}

/// Starts the params of a client call of `method`.
#[inline]
pub fn params(method: &'static MethodInfo) -> ParamsBuilder {
    ParamsBuilder::new(method)
}

/// The params of a client call of a `#[params]` method: the value itself, or
/// none at all for an optional one that is `None`.
pub fn whole_params<T: Serialize>(
    method: &'static MethodInfo,
    value: &T,
) -> Result<Option<Params>, ClientError> {
    let json = serde_json::to_string(value).map_err(ClientError::Encode)?;
    let optional = method.param_list().first().is_some_and(|p| p.is_optional());
    if optional && json == "null" {
        return Ok(None);
    }
    Params::from_json(json).map(Some)
}

/// Sends a request for `method` and decodes its result.
pub async fn request<T, R>(
    transport: &T,
    method: &'static MethodInfo,
    params: Result<Option<Params>, ClientError>,
) -> Result<R, ClientError>
where
    T: Transport + ?Sized,
    R: DeserializeOwned,
{
    let params = params?;
    let request =
        OutgoingRequest::new(method.name(), params.as_ref()).idempotent(method.is_idempotent());
    let reply = transport.send_request(request).await?;
    client::decode_result(&reply)
}

/// Sends the notification `method`.
pub async fn notify<T>(
    transport: &T,
    method: &'static MethodInfo,
    params: Result<Option<Params>, ClientError>,
) -> Result<(), ClientError>
where
    T: Transport + ?Sized,
{
    let params = params?;
    let notification =
        OutgoingRequest::new(method.name(), params.as_ref()).idempotent(method.is_idempotent());
    transport.send_notification(notification).await
}

/// Names `T` of `Result<T, E>` for a return type spelled as an alias without
/// arguments, so the client can return `Result<T, ClientError>`.
pub trait ResultType {
    /// The success type.
    type Ok;
}

impl<T, E> ResultType for Result<T, E> {
    type Ok = T;
}
