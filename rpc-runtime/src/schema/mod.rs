//! OpenRPC 1.3 documents of services and routers (the `schema` feature).
//!
//! `#[rpc]` gives each param and result in a service's [`ServiceInfo`] a
//! [`SchemaFn`] that writes the type's JSON Schema with `schemars`; a
//! [`Document`] puts the methods of one or more services together, each
//! shared type once under `components/schemas`, in the draft-07 form that
//! OpenRPC 1.3 tooling reads.
//!
//! A type without a [`JsonSchema`](schemars::JsonSchema) impl does not stop
//! the build: its schema is `{}` (any value) with a description naming the
//! type, so adding this feature never breaks a crate whose traits use
//! foreign types; derive `JsonSchema` to describe them.
//!
//! [`ServiceInfo`]: crate::ServiceInfo

mod document;
#[doc(hidden)]
pub mod probe;
mod strict;

pub use document::Document;
/// The `schemars` this crate builds its schemas with, so that a user's
/// `#[derive(JsonSchema)]` matches it.
pub use schemars;

pub use crate::metadata::SchemaFn;

/// A [`SchemaFn`] for `$ty`: its `JsonSchema` when it has one, otherwise a
/// schema that accepts anything and names the type.
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_fn {
    ($ty:ty) => {{
        fn schema(
            generator: &mut $crate::schema::schemars::SchemaGenerator,
        ) -> $crate::schema::schemars::Schema {
            #[allow(unused_imports)]
            use $crate::schema::probe::{HasJsonSchema as _, NoJsonSchema as _};
            (&&$crate::schema::probe::Probe::<$ty>::NEW).schema(generator)
        }
        schema as $crate::schema::SchemaFn
    }};
}

/// A [`SchemaFn`] for the `T` of the `Result<T, E>` that `$ty` names (a
/// return type behind an alias), like [`__schema_fn`].
#[doc(hidden)]
#[macro_export]
macro_rules! __result_schema_fn {
    ($ty:ty) => {{
        fn schema(
            generator: &mut $crate::schema::schemars::SchemaGenerator,
        ) -> $crate::schema::schemars::Schema {
            #[allow(unused_imports)]
            use $crate::schema::probe::{HasJsonSchema as _, NoJsonSchema as _, NotAResult as _};
            (&&&$crate::schema::probe::ResultProbe::<$ty>::NEW).schema(generator)
        }
        schema as $crate::schema::SchemaFn
    }};
}
