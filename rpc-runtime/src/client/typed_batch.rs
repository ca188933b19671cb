//! The typed side of batches: a handle per call, and the replies read
//! through it, for the `batch()` of a generated client.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use super::{BatchResponse, ClientError};
use crate::__private::ResultType;

/// A call added to a generated client's batch; its result is read from the
/// [`BatchReplies`] with it.
///
/// `R` is the method's return type as the trait declares it, so
/// [`BatchReplies::get`] returns what the client method would: the success
/// type, and [`ClientError`] or [`CallError<E>`](super::CallError).
#[derive(Debug)]
#[must_use = "the result of a batched call is read with `BatchReplies::get`"]
pub struct BatchCall<R> {
    /// The call's position among the batch's requests, or why it was not sent.
    request: Result<usize, ClientError>,
    result: PhantomData<fn() -> R>,
}

impl<R> BatchCall<R> {
    pub(crate) fn new(request: Result<usize, ClientError>) -> Self {
        BatchCall {
            request,
            result: PhantomData,
        }
    }
}

/// The replies to a generated client's batch, each read with its
/// [`BatchCall`].
#[derive(Debug)]
pub struct BatchReplies {
    response: BatchResponse,
}

impl BatchReplies {
    pub(crate) fn new(response: BatchResponse) -> Self {
        BatchReplies { response }
    }

    /// The outcome of `call`, as its client method would return it: an
    /// error object of the method's error type arrives typed, a call whose
    /// params could not be serialized (and was not sent) is an `Encode`
    /// error, and a request without a reply is a `Decode` error.
    pub fn get<R>(&self, call: BatchCall<R>) -> Result<R::Ok, R::ClientError>
    where
        R: ResultType,
        R::Ok: DeserializeOwned,
    {
        call.request
            .and_then(|index| self.response.result_at(index))
            .map_err(R::from_client_error)
    }
}
