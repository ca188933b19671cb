//! What the client of a streaming method gets: its items, typed.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::{ClientError, DecodeError};

/// A streaming call's items as the transport brings them: each result's
/// JSON, or the error that ended the stream.
pub type RawItems = Pin<Box<dyn Stream<Item = Result<Box<RawValue>, ClientError>> + Send>>;

/// The items of a streaming call (`#[method(stream)]`), each decoded as `T`,
/// each failure as `E`.
///
/// A [`Stream`]; [`next`](Subscription::next) reads it without a stream
/// extension trait. `E` is what the generated client method returns for
/// the items' error type: [`ClientError`] for an [`ErrorObject`](crate::ErrorObject),
/// [`CallError<E>`](super::CallError) for a type deriving `RpcError`, whose
/// error items then arrive typed in [`CallError::App`](super::CallError::App).
///
/// How it ends says why:
///
/// - `None` after the last item: the server's stream completed;
/// - an error item the server sent, then `None`: the stream failed;
/// - a [`Transport`](ClientError::Transport) error, then `None`: the stream
///   was cut. Its [`kind`](super::TransportError::kind) is
///   [`Shutdown`](super::TransportErrorKind::Shutdown) when the server shut
///   down (it says so before it closes, on Server-Sent Events, WebSocket,
///   TCP and stdio alike) and [`Closed`](super::TransportErrorKind::Closed)
///   when the connection was lost; [`ClientError::is_shutdown`] and
///   [`CallError::is_shutdown`](super::CallError::is_shutdown) tell them apart.
///
/// Dropping it stops the stream: on a two-way connection it unsubscribes,
/// over HTTP it closes the response, and either way the server drops its
/// producer.
///
/// ```
/// use typed_rpc::client::{RawItems, Subscription};
/// use serde_json::value::RawValue;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let raw = |json: &str| Ok(RawValue::from_string(json.to_owned()).unwrap());
/// let items: RawItems = Box::pin(Iter(vec![raw("1"), raw("2")].into_iter()));
/// let mut numbers = Subscription::<u64>::new(items);
/// assert_eq!(numbers.next().await.unwrap().unwrap(), 1);
/// assert_eq!(numbers.next().await.unwrap().unwrap(), 2);
/// assert!(numbers.next().await.is_none()); // completed
/// # });
/// # struct Iter<I>(I);
/// # impl<I: Iterator + Unpin> futures_core::Stream for Iter<I> {
/// #     type Item = I::Item;
/// #     fn poll_next(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<I::Item>> {
/// #         std::task::Poll::Ready(self.0.next())
/// #     }
/// # }
/// ```
pub struct Subscription<T, E = ClientError> {
    items: RawItems,
    _item: PhantomData<fn() -> (T, E)>,
}

impl<T, E> Subscription<T, E> {
    /// Decodes `items` as `T`, and their errors as `E`.
    pub fn new(items: RawItems) -> Self {
        Subscription {
            items,
            _item: PhantomData,
        }
    }
}

impl<T: DeserializeOwned, E: From<ClientError>> Subscription<T, E> {
    /// The next item; `None` once the stream has ended.
    pub async fn next(&mut self) -> Option<Result<T, E>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl<T: DeserializeOwned, E: From<ClientError>> Stream for Subscription<T, E> {
    type Item = Result<T, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.items.as_mut().poll_next(cx).map(|item| {
            item.map(|item| {
                let item = item.and_then(|item| {
                    serde_json::from_str(item.get())
                        .map_err(|err| ClientError::Decode(DecodeError::result_type(err)))
                });
                item.map_err(E::from)
            })
        })
    }
}

impl<T, E> std::fmt::Debug for Subscription<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subscription")
    }
}

/// The client's error for an error item of a stream: the server's shutdown
/// notice is a [`Shutdown`](super::TransportErrorKind::Shutdown) transport
/// error, any other error object the server's.
#[cfg(any(feature = "http", feature = "duplex"))]
pub(crate) fn item_error(error: crate::ErrorObject) -> ClientError {
    match error.code() {
        crate::code::SHUTTING_DOWN => ClientError::Transport(super::TransportError::with_source(
            super::TransportErrorKind::Shutdown,
            error,
        )),
        _ => ClientError::Rpc(error),
    }
}

/// The error of a transport that cannot carry a streaming call.
#[cold]
pub(crate) fn cannot_stream() -> ClientError {
    ClientError::Transport(super::TransportError::with_source(
        super::TransportErrorKind::Refused,
        std::io::Error::other("this transport cannot carry a streaming call"),
    ))
}
