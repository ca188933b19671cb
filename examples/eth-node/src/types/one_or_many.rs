//! A filter field that is one value or a list of them (`address`, each entry of `topics`).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// One value, or any of several; written back as it came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneOrMany<T> {
    /// A single value.
    One(T),
    /// A list (an empty one matches nothing).
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The one, or the many, as a slice.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Self::One(one) => std::slice::from_ref(one),
            Self::Many(many) => many,
        }
    }
}

impl<T: PartialEq> OneOrMany<T> {
    /// Whether `value` is the one, or one of the many.
    pub fn contains(&self, value: &T) -> bool {
        match self {
            Self::One(one) => one == value,
            Self::Many(many) => many.contains(value),
        }
    }
}

impl<T: Serialize> Serialize for OneOrMany<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::One(one) => one.serialize(serializer),
            Self::Many(many) => many.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A visitor rather than `#[serde(untagged)]`, so a bad entry is
        // reported as itself ("invalid string length") and not as "did not
        // match any variant".
        struct OneOrManyVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrManyVisitor<T> {
            type Value = OneOrMany<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hex string or an array of them")
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
                T::deserialize(de::value::StrDeserializer::new(value)).map(OneOrMany::One)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut many = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(value) = seq.next_element()? {
                    many.push(value);
                }
                Ok(OneOrMany::Many(many))
            }
        }

        deserializer.deserialize_any(OneOrManyVisitor(PhantomData))
    }
}
