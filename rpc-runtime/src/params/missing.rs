//! What a param, or the whole `params`, left out of a request decodes as.

use serde::de::{self, Deserializer, Visitor};
use serde::forward_to_deserialize_any;

/// A deserializer for a param that was left out: `Option`s read it as `None`,
/// every other type fails, as serde does for a missing struct field.
pub(super) struct Missing;

impl<'de> Deserializer<'de> for Missing {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Absent `params` as a `#[params]` value sees them: an empty object to a
/// struct or a map, so that one whose every field is optional or has a
/// default decodes exactly as from `{}` (and one with a required field
/// names it); `None` to an `Option`; nothing to any other type.
pub(super) struct Absent;

/// What [`Absent`] fails with when the type needs a value it cannot give.
pub(super) const NO_VALUE: &str = "missing params";

impl<'de> Deserializer<'de> for Absent {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom(NO_VALUE))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let no_members = std::iter::empty::<(&str, &str)>();
        visitor.visit_map(de::value::MapDeserializer::new(no_members))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_map(visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct enum identifier
        ignored_any
    }
}
