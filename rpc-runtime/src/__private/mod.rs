//! Helpers for the code `#[rpc]` generates. Not a public API: anything here
//! may change in any release.
//!
//! Each helper holds logic that would otherwise be repeated in every
//! expansion, so the generated code stays a thin table of calls.
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | [`Ty`] and the assertions on param and result types |
//! | `serve.rs` | the server's side: decoding params and starting handlers |
//! | `call.rs` | the client's side: encoding params, sending calls, typing their errors |
//! | `error_data.rs` | the error objects of derived error types, and their `data` |
//! | `batch.rs` | the generated typed batches |

mod batch;
mod call;
mod error_data;
mod serve;

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::{DecodeParams, ErrorObject, MethodInfo};

pub use crate::choose::{Alternative, Pattern, choose, kind, present};
pub use crate::client::error_of::{ClientErrorOf, ResultType};
pub use crate::error_info::declared_error;
pub use crate::params::Whole;
pub use batch::{BatchFuture, BatchState};
pub use call::{
    alias_client_result, client_error, client_result, notify, params, request, subscribe,
    typed_stream, whole_params,
};
pub use error_data::{
    DataReader, DataWriter, ErrorField, data_array, data_object, error_field, error_object,
    error_with_data,
};
pub use futures_core::Stream;
pub use serde_json;
pub use serve::{call_boxed, dispatch, dispatch_stream, unsubscribe};

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
