//! Helpers for the code `#[rpc]` generates. Not a public API: anything here
//! may change in any release.
//!
//! Each helper holds logic that would otherwise be repeated in every
//! expansion, so the generated code stays a thin table of calls.

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::{Pin, pin};
use std::task::{self, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::{self, ClientError, OutgoingRequest, Params, ParamsBuilder, Transport};
use crate::service::{Call, HandlerFuture, HandlerSlot, IntoResponse, RpcService};
use serde_json::value::RawValue;

use crate::{DecodeParams, ErrorObject, MethodInfo};

pub use crate::params::Whole;

/// A type passed as a value, so that an unmet bound on it is reported on the
/// expression that names it, which the macro places over the type in the
/// user's trait.
pub struct Ty<T: ?Sized>(PhantomData<fn() -> *const T>);

/// Names `T` as a value (see [`Ty`]).
#[inline]
pub const fn ty<T: ?Sized>() -> Ty<T> {
    Ty(PhantomData)
}

/// A param type: the client serializes it, the server deserializes it.
///
/// The generated code asserts it of each param type before using the type,
/// so that a type without serde gets this one error, on the type, instead of
/// one per use naming serde's and the runtime's internals.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a param of an RPC method: it does not implement `serde::Serialize` and `serde::Deserialize`",
    label = "a param must implement `Serialize` and `Deserialize`",
    note = "the client serializes each param and the server deserializes it: add `#[derive(serde::Serialize, serde::Deserialize)]` to the type (to the element type of a `Vec`, an `Option` or a map)"
)]
pub trait Param: Serialize + DeserializeOwned {}

// Reported as `T: Param`, not as the serde bound it misses.
#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> Param for T {}

/// A result type: the server serializes it, the client deserializes it
/// (asserted like [`Param`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of an RPC method: it does not implement `serde::Serialize` and `serde::Deserialize`",
    label = "a result must implement `Serialize` and `Deserialize`",
    note = "the server serializes the result and the client deserializes it: add `#[derive(serde::Serialize, serde::Deserialize)]` to the type (to the element type of a `Vec`, an `Option` or a map)"
)]
pub trait ResultValue: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> ResultValue for T {}

/// Asserts that `T` is a [`Param`].
#[inline]
pub const fn param<T: Param>(_: Ty<T>) {}

/// Asserts that `T` is a [`ResultValue`].
#[inline]
pub const fn result<T: ResultValue>(_: Ty<T>) {}

/// The param types of a method, passed to [`dispatch`] as values: a tuple
/// `(ty::<A>(), ty::<B>())`, or `ty::<Whole<T>>()` for a `#[params]` method.
///
/// A type that is not a [`Param`] is then reported on the element of the
/// tuple that names it (the macro places it over the type in the trait),
/// where the assertion before it has reported it already, so the compiler
/// reports it once. With the decoded tuple named as a type, it would be
/// reported again on the whole parameter list.
pub trait ParamTypes {
    /// What the params are decoded into.
    type Decoded: DecodeParams;

    /// Decodes `params` for `method`.
    #[inline]
    fn decode(
        params: Option<&RawValue>,
        method: &'static MethodInfo,
    ) -> Result<Self::Decoded, ErrorObject> {
        Self::Decoded::decode(params, method)
    }
}

impl ParamTypes for () {
    type Decoded = ();
}

impl<T: Param> ParamTypes for Ty<Whole<T>> {
    type Decoded = Whole<T>;
}

macro_rules! param_types {
    ($($T:ident),+) => {
        impl<$($T: Param),+> ParamTypes for ($(Ty<$T>,)+) {
            type Decoded = ($($T,)+);
        }
    };
}

// As many as `DecodeParams` is implemented for.
param_types!(A);
param_types!(A, B);
param_types!(A, B, C);
param_types!(A, B, C, D);
param_types!(A, B, C, D, E);
param_types!(A, B, C, D, E, F);
param_types!(A, B, C, D, E, F, G);
param_types!(A, B, C, D, E, F, G, H);
param_types!(A, B, C, D, E, F, G, H, I);
param_types!(A, B, C, D, E, F, G, H, I, J);
param_types!(A, B, C, D, E, F, G, H, I, J, K);
param_types!(A, B, C, D, E, F, G, H, I, J, K, L);
param_types!(A, B, C, D, E, F, G, H, I, J, K, L, M);
param_types!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
param_types!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
param_types!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

/// Decodes the params of `call` for `method` into the types `params` names,
/// then puts the future of `handler` run on them in `slot` and polls it once
/// with `cx`: the first poll of [`RpcService::call_in`] for a method that
/// exists.
#[inline]
pub fn dispatch<'a, P, A, F, Fut>(
    call: Call<'a>,
    method: &'static MethodInfo,
    _params: P,
    handler: F,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>>
where
    // No bound `A: DecodeParams`: `ParamTypes` implies it, and a bound of
    // its own would be checked, and reported, a second time.
    P: ParamTypes<Decoded = A>,
    F: FnOnce(A) -> Fut,
    Fut: Future + Send + 'a,
    Fut::Output: IntoResponse,
{
    Some(match P::decode(call.params(), method) {
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
/// none at all for an optional one that is `None`. The type is named by
/// `_param_type` too, so that a type that is not a [`Param`] is reported where
/// the assertion on it was.
pub fn whole_params<T: Param>(
    method: &'static MethodInfo,
    _param_type: Ty<T>,
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
