//! Picks a type's `JsonSchema` when it has one, in code generated for a
//! concrete type, without a bound that would fail the build otherwise.
//!
//! Method lookup tries `&&Probe<T>` receivers before `&Probe<T>` ones, so
//! [`HasJsonSchema`] wins wherever its bound holds and [`NoJsonSchema`] is
//! the fallback. [`ResultProbe`] does the same one level deeper, for a
//! method's return type behind an alias: the `T` of a `Result<T, E>`.

use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

/// Stands for the type `T` in a method call.
pub struct Probe<T: ?Sized>(PhantomData<fn() -> T>);

impl<T: ?Sized> Probe<T> {
    /// The probe.
    pub const NEW: Self = Probe(PhantomData);
}

/// The schema of a type that implements `JsonSchema`.
pub trait HasJsonSchema {
    /// The type's schema, or a `$ref` to it.
    fn schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<T: JsonSchema + ?Sized> HasJsonSchema for &Probe<T> {
    fn schema(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<T>()
    }
}

/// The schema of a type that does not: any value.
pub trait NoJsonSchema {
    /// `{}` with a description naming the type.
    fn schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<T: ?Sized> NoJsonSchema for Probe<T> {
    fn schema(&self, _: &mut SchemaGenerator) -> Schema {
        any_value::<T>()
    }
}

/// Stands for a method's return type `R` in a method call.
pub struct ResultProbe<R>(PhantomData<fn() -> R>);

impl<R> ResultProbe<R> {
    /// The probe.
    pub const NEW: Self = ResultProbe(PhantomData);
}

impl<T: JsonSchema, E> HasJsonSchema for &&ResultProbe<Result<T, E>> {
    fn schema(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<T>()
    }
}

impl<T, E> NoJsonSchema for &ResultProbe<Result<T, E>> {
    fn schema(&self, _: &mut SchemaGenerator) -> Schema {
        any_value::<T>()
    }
}

/// The schema of a return type that is no `Result` (the build reports it):
/// any value.
pub trait NotAResult {
    /// `{}` with a description naming the type.
    fn schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<R> NotAResult for ResultProbe<R> {
    fn schema(&self, _: &mut SchemaGenerator) -> Schema {
        any_value::<R>()
    }
}

fn any_value<T: ?Sized>() -> Schema {
    let description = format!(
        "any value: the Rust type `{}` does not implement `schemars::JsonSchema`",
        std::any::type_name::<T>()
    );
    json_schema!({ "description": description })
}
