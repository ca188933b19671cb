//! The typed side of batches: a handle per call, and the replies read
//! through it, for the `batch()` of a generated client.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use super::error_of::ResultType;
use super::{BatchResponse, ClientError};

/// A call added to a generated client's batch; its result is read from the
/// [`BatchReplies`] with it.
///
/// `R` is the method's return type as the trait declares it, so
/// [`BatchReplies::get`] returns what the client method would: the success
/// type, and [`ClientError`] or [`CallError<E>`](super::CallError).
///
/// A handle is a position in its batch: `Copy`, so handles kept in a `Vec`
/// or a map are read as often as needed, by value or by reference.
#[must_use = "the result of a batched call is read with `BatchReplies::get`"]
pub struct BatchCall<R> {
    slot: Slot,
    result: PhantomData<fn() -> R>,
}

/// Where a batched call's outcome is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Its position among the batch's requests.
    Sent(usize),
    /// Its params could not be serialized: the position of the error among
    /// the batch's unsent calls.
    Unsent(usize),
}

impl<R> BatchCall<R> {
    pub(crate) fn sent(request: usize) -> Self {
        BatchCall::at(Slot::Sent(request))
    }

    pub(crate) fn unsent(error: usize) -> Self {
        BatchCall::at(Slot::Unsent(error))
    }

    fn at(slot: Slot) -> Self {
        BatchCall {
            slot,
            result: PhantomData,
        }
    }
}

// By hand: a derive would ask `R: Clone`, and `R` is only a marker.
impl<R> Clone for BatchCall<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for BatchCall<R> {}

impl<R> AsRef<BatchCall<R>> for BatchCall<R> {
    fn as_ref(&self) -> &BatchCall<R> {
        self
    }
}

impl<R> std::fmt::Debug for BatchCall<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BatchCall").field(&self.slot).finish()
    }
}

/// The replies to a generated client's batch, each read with its
/// [`BatchCall`].
#[derive(Debug)]
pub struct BatchReplies {
    response: BatchResponse,
    /// Why each call left out of the batch could not be sent.
    unsent: Vec<String>,
}

impl BatchReplies {
    pub(crate) fn new(response: BatchResponse, unsent: Vec<String>) -> Self {
        BatchReplies { response, unsent }
    }

    /// The outcome of `call`, as its client method would return it: an
    /// error object of the method's error type arrives typed, a call whose
    /// params could not be serialized (and was not sent) is an `Encode`
    /// error, and a request without a reply is a `Decode` error.
    ///
    /// `call` is a handle or a reference to one; each reply may be read
    /// any number of times.
    ///
    /// ```
    /// # use typed_rpc::client::InProcess;
    /// # use typed_rpc::{Router, RpcResult, rpc};
    /// #[rpc]
    /// pub trait Squares {
    ///     #[method(name = "square")]
    ///     async fn square(&self, n: i64) -> RpcResult<i64>;
    /// }
    /// # struct Math;
    /// # impl Squares for Math {
    /// #     async fn square(&self, n: i64) -> RpcResult<i64> { Ok(n * n) }
    /// # }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), typed_rpc::ClientError> {
    /// let client = SquaresClient::new(InProcess::new(Router::new(Math.into_service())));
    /// let mut batch = client.batch();
    /// let calls: Vec<_> = (1..=3).map(|n| batch.square(n)).collect();
    /// let replies = batch.await?;
    /// let mut squares = Vec::new();
    /// for call in &calls {
    ///     squares.push(replies.get(call)?);
    /// }
    /// assert_eq!(squares, [1, 4, 9]);
    /// assert_eq!(replies.get(calls[2])?, 9);
    /// # Ok(()) }
    /// ```
    pub fn get<R>(&self, call: impl AsRef<BatchCall<R>>) -> Result<R::Ok, R::ClientError>
    where
        R: ResultType,
        R::Ok: DeserializeOwned,
    {
        let outcome = match call.as_ref().slot {
            Slot::Sent(index) => self.response.result_at(index),
            Slot::Unsent(index) => Err(self.unsent_error(index)),
        };
        outcome.map_err(R::from_client_error)
    }

    /// The `Encode` error of the unsent call at `index`, made anew for each
    /// read (serde's errors cannot be cloned; their text is kept).
    #[cold]
    fn unsent_error(&self, index: usize) -> ClientError {
        let reason = self.unsent.get(index).map_or("", String::as_str);
        ClientError::Encode(serde::ser::Error::custom(reason))
    }
}
