//! The client's side of generated services: encoding params, sending
//! calls, and typing the errors of what comes back.

use serde::de::DeserializeOwned;

use super::{Param, Ty};
use crate::MethodInfo;
use crate::client::error_of::{ClientErrorOf, ResultType};
use crate::client::{self, ClientError, OutgoingRequest, Params, ParamsBuilder, Transport};

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

/// [`client_result`] for a return type spelled as an alias, named by
/// `_result_type`.
#[inline]
pub fn alias_client_result<R: ResultType>(
    _result_type: Ty<R>,
    result: Result<R::Ok, ClientError>,
) -> Result<R::Ok, R::ClientError> {
    result.map_err(R::from_client_error)
}

/// Asserts that the client can return `E` (see [`ClientErrorOf`]).
#[inline]
pub const fn client_error<E: ClientErrorOf>(_: Ty<E>) {}
