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

/// The items of a streaming call (`#[method(stream)]`), each decoded as `T`.
///
/// A [`Stream`]; [`next`](Subscription::next) reads it without a stream
/// extension trait. It ends when the server's stream ends; an item the
/// server sends as an error is the last one. Dropping it stops the stream:
/// on a two-way connection it unsubscribes, over HTTP it closes the
/// response, and either way the server drops its producer.
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
/// assert!(numbers.next().await.is_none());
/// # });
/// # struct Iter<I>(I);
/// # impl<I: Iterator + Unpin> futures_core::Stream for Iter<I> {
/// #     type Item = I::Item;
/// #     fn poll_next(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<I::Item>> {
/// #         std::task::Poll::Ready(self.0.next())
/// #     }
/// # }
/// ```
pub struct Subscription<T> {
    items: RawItems,
    _item: PhantomData<fn() -> T>,
}

impl<T> Subscription<T> {
    /// Decodes `items` as `T`.
    pub fn new(items: RawItems) -> Self {
        Subscription {
            items,
            _item: PhantomData,
        }
    }
}

impl<T: DeserializeOwned> Subscription<T> {
    /// The next item; `None` once the stream has ended.
    pub async fn next(&mut self) -> Option<Result<T, ClientError>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl<T: DeserializeOwned> Stream for Subscription<T> {
    type Item = Result<T, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.items.as_mut().poll_next(cx).map(|item| {
            item.map(|item| {
                serde_json::from_str(item?.get())
                    .map_err(|err| ClientError::Decode(DecodeError::result_type(err)))
            })
        })
    }
}

impl<T> std::fmt::Debug for Subscription<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subscription")
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
