//! The application errors of a method: those its `#[method(error(..))]`
//! attributes declare, and those its error type lists ([`ErrorList`],
//! which `#[derive(RpcError)]` implements), for the OpenRPC document and
//! for the compile-time check that the two agree.

use std::marker::PhantomData;

use crate::ErrorObject;

/// An application error: its `code`, its `message` and, in documents, the
/// JSON Schema of its `data`.
///
/// ```
/// use typed_rpc::{ErrorInfo, MethodInfo};
///
/// static ADD: MethodInfo = MethodInfo::method("add").errors(&[ErrorInfo::new(-32000, "Overflow")]);
/// assert_eq!(ADD.declared_errors()[0].code(), -32000);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ErrorInfo {
    code: i64,
    message: &'static str,
    #[cfg(feature = "schema")]
    data: Option<crate::schema::SchemaFn>,
}

impl ErrorInfo {
    /// The error `code` with its `message`.
    pub const fn new(code: i64, message: &'static str) -> Self {
        ErrorInfo {
            code,
            message,
            #[cfg(feature = "schema")]
            data: None,
        }
    }

    /// Sets the function that writes the JSON Schema of the error's `data`.
    #[cfg(feature = "schema")]
    pub const fn data_schema(mut self, data: crate::schema::SchemaFn) -> Self {
        self.data = Some(data);
        self
    }

    /// The error code.
    pub const fn code(&self) -> i64 {
        self.code
    }

    /// The error message.
    pub const fn message(&self) -> &'static str {
        self.message
    }

    /// The function that writes the JSON Schema of the error's `data`, if
    /// it has data.
    #[cfg(feature = "schema")]
    pub const fn data_schema_fn(&self) -> Option<crate::schema::SchemaFn> {
        self.data
    }
}

impl PartialEq for ErrorInfo {
    fn eq(&self, other: &Self) -> bool {
        (self.code, self.message) == (other.code, other.message)
    }
}

impl Eq for ErrorInfo {}

/// An error type that lists the errors it can be: one [`ErrorInfo`] per
/// code. `#[derive(RpcError)]` implements it; the OpenRPC document lists
/// these errors under each method that returns the type, and a method's
/// `#[method(error(..))]` entries are checked against them at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not list the errors it sends, so this method's `error(...)` entries cannot be checked against it",
    label = "the method's error type",
    note = "derive `RpcError` on it, or implement `ErrorList` for it"
)]
pub trait ErrorList {
    /// Every error of the type, one per code.
    const ERRORS: &'static [ErrorInfo];
}

/// Plain error objects say nothing of their codes: a method declares them
/// with `#[method(error(..))]`.
impl ErrorList for ErrorObject {
    const ERRORS: &'static [ErrorInfo] = &[];
}

/// Stands for a method's return type `R` in a method call (see
/// `schema::probe`, which picks a `JsonSchema` the same way).
#[doc(hidden)]
pub struct ErrorsProbe<R>(PhantomData<fn() -> R>);

impl<R> ErrorsProbe<R> {
    /// The probe.
    pub const NEW: Self = ErrorsProbe(PhantomData);
}

/// The errors of a `Result<T, E>` whose `E` lists them.
#[doc(hidden)]
pub trait ListedErrors {
    /// `E::ERRORS`.
    fn errors(&self) -> &'static [ErrorInfo];
}

impl<T, E: ErrorList> ListedErrors for &ErrorsProbe<Result<T, E>> {
    fn errors(&self) -> &'static [ErrorInfo] {
        E::ERRORS
    }
}

/// The errors of any other return type: none listed.
#[doc(hidden)]
pub trait UnlistedErrors {
    /// Nothing.
    fn errors(&self) -> &'static [ErrorInfo];
}

impl<R> UnlistedErrors for ErrorsProbe<R> {
    fn errors(&self) -> &'static [ErrorInfo] {
        &[]
    }
}

/// The function listing the errors of the return type `$ty` (the `E` of
/// its `Result<T, E>` when `E` implements [`ErrorList`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __errors_fn {
    ($ty:ty) => {{
        fn errors() -> &'static [$crate::ErrorInfo] {
            #[allow(unused_imports)]
            use $crate::error_info::{ListedErrors as _, UnlistedErrors as _};
            (&&$crate::error_info::ErrorsProbe::<$ty>::NEW).errors()
        }
        errors as fn() -> &'static [$crate::ErrorInfo]
    }};
}

/// Fails the build when the error `code` with `message` is not one that
/// `E` lists: a `#[method(error(..))]` entry the server would never send
/// as written. A type that lists no errors (`ErrorObject`) allows any.
#[doc(hidden)]
pub const fn declared_error<E: ErrorList>(code: i64, message: &str) {
    let errors = E::ERRORS;
    if errors.is_empty() {
        return;
    }
    let mut i = 0;
    while i < errors.len() {
        if errors[i].code == code {
            assert!(
                same(errors[i].message, message),
                "this `error(...)` has the code of one of the error type's variants but not its message: the server sends the variant's"
            );
            return;
        }
        i += 1;
    }
    panic!(
        "this `error(...)` has a code none of the error type's variants has: the server never sends it"
    )
}

/// `a == b`, in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
