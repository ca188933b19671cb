//! The error a generated client method returns, named from the error type
//! of its method: what the generated code and typed batches sort a failed
//! call into.

use super::ClientError;
use crate::ErrorObject;

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

/// The error a generated client method returns for a method whose error type
/// is `Self`.
///
/// [`ErrorObject`], and a type with hand-written conversions whose
/// `TryFrom<ErrorObject>` gives the object back as its error, keep
/// [`ClientError`] (the object is recovered with
/// [`ClientError::into_app_error`]); a type deriving `RpcError` implements it
/// with [`CallError<Self>`](super::CallError), which holds the type itself.
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
