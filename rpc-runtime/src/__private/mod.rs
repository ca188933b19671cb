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

use crate::client::{
    self, Batch, BatchCall, BatchReplies, BatchResponse, ClientError, OutgoingRequest, Params,
    ParamsBuilder, Transport,
};
use crate::service::{Call, HandlerFuture, HandlerSlot, IntoResponse, RpcService};
use serde_json::value::RawValue;

use crate::{DecodeParams, ErrorObject, MethodInfo};

pub use crate::choose::{Alternative, Pattern, choose, kind, present};
pub use crate::error_info::declared_error;
pub use crate::params::Whole;
pub use futures_core::Stream;
pub use serde_json;

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

/// [`dispatch`] for a streaming method (`#[method(stream)]`): the handler
/// resolves to a stream of items, which go out as the transport streams
/// (see [`streaming`](crate::streaming)). A call that cannot stream where
/// it came from is refused before its params are read, unless its method
/// falls back to its last item.
#[inline]
pub fn dispatch_stream<'a, P, A, F, Fut, S, T, E, ItemError>(
    call: Call<'a>,
    method: &'static MethodInfo,
    _params: P,
    handler: F,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>>
where
    P: ParamTypes<Decoded = A>,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<S, E>> + Send + 'a,
    E: Into<ErrorObject>,
    S: futures_core::Stream<Item = Result<T, ItemError>> + Send + 'static,
    T: Serialize,
    ItemError: Into<ErrorObject>,
{
    // The macro marks every method it dispatches here as streaming.
    let info = method.stream_info()?;
    let route = match crate::streaming::route(call.context(), call.is_batched(), info) {
        Ok(route) => route,
        Err(refused) => return Some(Poll::Ready(call.respond_error(&refused))),
    };
    Some(match P::decode(call.params(), method) {
        Ok(args) => {
            let running = handler(args);
            let id = call.id();
            slot.start(
                async move {
                    let id = id?;
                    let items = match running.await {
                        Ok(items) => crate::streaming::Items::new(items),
                        Err(err) => return Some(crate::wire::failure(Some(id), &err.into())),
                    };
                    crate::streaming::serve(route, id, info, items).await
                },
                cx,
            )
        }
        Err(err) => Poll::Ready(call.respond_error(&err)),
    })
}

/// Answers the unsubscribe method of a streaming method: `[id]` or
/// `{"subscription": id}` ends the subscription `id` of the caller's
/// connection; `true` if it was live.
pub fn unsubscribe<'a>(
    call: Call<'a>,
    method: &'static MethodInfo,
    slot: Pin<&mut HandlerSlot<'a>>,
    cx: &mut task::Context<'_>,
) -> Option<Poll<Option<String>>> {
    Some(match <(String,)>::decode(call.params(), method) {
        Ok((subscription,)) => slot.start(
            async move {
                let ended = match call.context().peer() {
                    Some(peer) => peer.unsubscribe(&subscription).await,
                    None => false,
                };
                call.respond(Ok::<_, ErrorObject>(ended))
            },
            cx,
        ),
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
    client::traced(method.name(), async {
        let params = params?;
        let request =
            OutgoingRequest::new(method.name(), params.as_ref()).idempotent(method.is_idempotent());
        let reply = transport.send_request(request).await?;
        client::decode_result(&reply)
    })
    .await
}

/// Sends a call of the streaming `method` and hands back its items as the
/// transport brings them (see [`typed_stream`]).
pub async fn subscribe<T>(
    transport: &T,
    method: &'static MethodInfo,
    params: Result<Option<Params>, ClientError>,
) -> Result<client::RawItems, ClientError>
where
    T: Transport + ?Sized,
{
    // The span covers the call that starts the stream, not the items.
    client::traced(method.name(), async {
        let params = params?;
        let request = OutgoingRequest::new(method.name(), params.as_ref());
        // The macro marks every method it calls this for as streaming.
        let Some(stream) = method.stream_info() else {
            return Err(client::cannot_stream());
        };
        transport.send_stream(request, stream).await
    })
    .await
}

/// A streaming call's outcome as its client method returns it: the items
/// typed as `I`, each item's `Result`, says, and the call's failure as `C`,
/// its `Result` with `()` for the unnameable stream, says (see
/// [`ResultType`]). Apart from [`subscribe`] so that the generated code
/// names the two error types in one place, where their assertions are.
#[inline]
pub fn typed_stream<C: ResultType, I: ResultType>(
    _call_type: Ty<C>,
    _items_type: Ty<I>,
    subscribed: Result<client::RawItems, ClientError>,
) -> Result<client::Subscription<I::Ok, I::ClientError>, C::ClientError> {
    subscribed
        .map(client::Subscription::new)
        .map_err(C::from_client_error)
}

/// The outcome of a call as the client method of a method whose error type
/// is `E` returns it (see [`ClientErrorOf`]); `_error_type` names `E` where
/// the assertion on it was.
#[inline]
pub fn client_result<R, E: ClientErrorOf>(
    _error_type: Ty<E>,
    result: Result<R, ClientError>,
) -> Result<R, E::Error> {
    result.map_err(E::from_client_error)
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
    client::traced(method.name(), async {
        let params = params?;
        let notification =
            OutgoingRequest::new(method.name(), params.as_ref()).idempotent(method.is_idempotent());
        transport.send_notification(notification).await
    })
    .await
}

/// Names `T` of `Result<T, E>`, and the client's error for `E`, for a return
/// type spelled as an alias without arguments, so the client can name what it
/// returns.
pub trait ResultType {
    /// The success type.
    type Ok;
    /// What the client method returns on failure (see [`ClientErrorOf`]).
    type ClientError;

    /// Sorts a failed call into [`Self::ClientError`].
    fn from_client_error(err: ClientError) -> Self::ClientError;
}

impl<T, E: ClientErrorOf> ResultType for Result<T, E> {
    type Ok = T;
    type ClientError = E::Error;

    #[inline]
    fn from_client_error(err: ClientError) -> E::Error {
        E::from_client_error(err)
    }
}

/// [`client_result`] for a return type spelled as an alias, named by
/// `_result_type`.
#[inline]
pub fn alias_client_result<R: ResultType>(
    _result_type: Ty<R>,
    result: Result<R::Ok, ClientError>,
) -> Result<R::Ok, R::ClientError> {
    result.map_err(R::from_client_error)
}

/// The error a generated client method returns for a method whose error type
/// is `Self`.
///
/// [`ErrorObject`], and a type with hand-written conversions whose
/// `TryFrom<ErrorObject>` gives the object back as its error, keep
/// [`ClientError`] (the object is recovered with
/// [`ClientError::into_app_error`]); a type deriving `RpcError` implements it
/// with [`CallError<Self>`](client::CallError), which holds the type itself.
#[diagnostic::on_unimplemented(
    message = "the client cannot turn an error object back into `{Self}`, the error type of an RPC method",
    label = "the client returns this error type, so it must convert from an error object",
    note = "derive `typed_rpc::RpcError` on the type (it converts both ways), or implement `TryFrom<ErrorObject, Error = ErrorObject>` beside `From<{Self}> for ErrorObject`"
)]
pub trait ClientErrorOf {
    /// What the client method returns on failure.
    type Error;

    /// Sorts a failed call into [`Self::Error`].
    fn from_client_error(err: ClientError) -> Self::Error;
}

impl ClientErrorOf for ErrorObject {
    type Error = ClientError;

    #[inline]
    fn from_client_error(err: ClientError) -> ClientError {
        err
    }
}

// Hand-written conversions keep the untyped error. A derived type's
// `TryFrom` gives an `UnknownError` back, so its own impl does not overlap.
// A type with neither is reported as not `ClientErrorOf`, not as missing
// this `TryFrom`.
#[diagnostic::do_not_recommend]
impl<E: TryFrom<ErrorObject, Error = ErrorObject>> ClientErrorOf for E {
    type Error = ClientError;

    #[inline]
    fn from_client_error(err: ClientError) -> ClientError {
        err
    }
}

/// Asserts that the client can return `E` (see [`ClientErrorOf`]).
#[inline]
pub const fn client_error<E: ClientErrorOf>(_: Ty<E>) {}

/// The type of a field of an error variant, which travels in the error's
/// `data`: the server serializes it, the client deserializes it (asserted
/// like [`Param`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an RPC error: it does not implement `serde::Serialize` and `serde::Deserialize`",
    label = "an error field must implement `Serialize` and `Deserialize`",
    note = "the fields of an error variant travel as the error object's `data`: add `#[derive(serde::Serialize, serde::Deserialize)]` to the type (to the element type of a `Vec`, an `Option` or a map)"
)]
pub trait ErrorField: Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned> ErrorField for T {}

/// Asserts that `T` is an [`ErrorField`].
#[inline]
pub const fn error_field<T: ErrorField>(_: Ty<T>) {}

/// The error object of a variant without fields: no `data`.
#[cold]
pub fn error_object(code: i64, message: &'static str) -> ErrorObject {
    ErrorObject::new(code, message)
}

/// The error object of a variant with one unnamed field: the field is the `data`.
#[cold]
pub fn error_with_data<T: ErrorField>(
    code: i64,
    message: &'static str,
    _field_type: Ty<T>,
    data: &T,
) -> ErrorObject {
    ErrorObject::new(code, message).with_data(data)
}

/// The `data` of a variant with named fields (an object) or several unnamed
/// ones (an array), written one field at a time.
pub struct DataWriter {
    text: String,
    failed: Option<serde_json::Error>,
}

/// Starts the `data` object of a variant with named fields.
#[cold]
pub fn data_object() -> DataWriter {
    DataWriter {
        text: String::from("{"),
        failed: None,
    }
}

/// Starts the `data` array of a variant with several unnamed fields.
#[cold]
pub fn data_array() -> DataWriter {
    DataWriter {
        text: String::from("["),
        failed: None,
    }
}

impl DataWriter {
    /// Adds the member `name` (of an object).
    pub fn field<T: ErrorField>(&mut self, name: &str, _field_type: Ty<T>, value: &T) {
        self.separate();
        // A `str` always serializes.
        self.text
            .push_str(&serde_json::to_string(name).unwrap_or_default());
        self.text.push(':');
        self.value(value);
    }

    /// Adds the next element (of an array).
    pub fn element<T: ErrorField>(&mut self, _field_type: Ty<T>, value: &T) {
        self.separate();
        self.value(value);
    }

    fn separate(&mut self) {
        if !matches!(self.text.as_bytes(), [b'{' | b'[']) {
            self.text.push(',');
        }
    }

    fn value<T: Serialize>(&mut self, value: &T) {
        match serde_json::to_string(value) {
            Ok(json) => self.text.push_str(&json),
            Err(err) => self.failed = Some(err),
        }
    }

    /// The error object with this `data`, or with none if a field failed to
    /// serialize (logged, as [`ErrorObject::with_data`] does: an error report
    /// must not itself fail).
    pub fn into_error(mut self, code: i64, message: &'static str) -> ErrorObject {
        let error = ErrorObject::new(code, message);
        if let Some(err) = self.failed {
            tracing::warn!(%err, "error data could not be serialized; sent without it");
            return error;
        }
        self.text
            .push(if self.text.starts_with('{') { '}' } else { ']' });
        match RawValue::from_string(self.text) {
            Ok(raw) => error.with_data(&*raw),
            Err(_) => error,
        }
    }
}

/// Reads the fields of a variant back from an error object's `data`.
///
/// A member or element that is absent reads as `null`, so an `Option` field
/// may be left out; members it does not know are ignored.
pub struct DataReader(serde_json::Value);

impl DataReader {
    /// The reader of `err`'s `data` (`null` when it has none).
    #[cold]
    pub fn new(err: &ErrorObject) -> Self {
        let value = err
            .data_as::<serde_json::Value>()
            .and_then(Result::ok)
            .unwrap_or_default();
        DataReader(value)
    }

    /// The whole `data`, as the one unnamed field of a variant.
    pub fn whole<T: ErrorField>(&self, _field_type: Ty<T>) -> Option<T> {
        T::deserialize(&self.0).ok()
    }

    /// The member `name` of an object.
    pub fn field<T: ErrorField>(&self, name: &str, _field_type: Ty<T>) -> Option<T> {
        Self::read(self.0.as_object()?.get(name))
    }

    /// The element at `index` of an array.
    pub fn element<T: ErrorField>(&self, index: usize, _field_type: Ty<T>) -> Option<T> {
        Self::read(self.0.as_array()?.get(index))
    }

    fn read<T: DeserializeOwned>(value: Option<&serde_json::Value>) -> Option<T> {
        T::deserialize(value.unwrap_or(&serde_json::Value::Null)).ok()
    }
}

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
