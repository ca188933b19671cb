//! Where inside a param a decode failed: the JSON Pointer into `params`,
//! found by decoding the failing value again with a tracking deserializer.

use std::fmt;

use serde::de::{DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_path_to_error::Segment;

use super::Slots;
use crate::MethodInfo;

/// Where decoding `value` as a `T` fails, found by decoding it again with a
/// deserializer that tracks the path; `None` if it decodes.
#[cold]
pub(super) fn failure_path<T: DeserializeOwned>(
    value: &RawValue,
) -> Option<serde_path_to_error::Path> {
    let mut de = serde_json::Deserializer::from_str(value.get());
    serde_path_to_error::deserialize::<_, T>(&mut de)
        .err()
        .map(|err| err.path().clone())
}

/// The pointer into `params` of the value inside param `index` that failed
/// to decode, if it lies below the param's own value.
#[cold]
pub(super) fn param_path<S: Slots>(
    method: &MethodInfo,
    index: usize,
    params: &RawValue,
) -> Option<String> {
    let name = method.param_list().get(index)?.name();
    let (token, value) = match find_param(params, index, name)? {
        Found::Element(value) => (index.to_string(), value),
        Found::Member(value) => (name.to_owned(), value),
    };
    // A scalar can only fail as a whole, where `param` and `position`
    // already say where: no second decode for it.
    if !is_container(value) {
        return None;
    }
    let path = S::failure_path(index, value)?;
    let mut pointer = String::new();
    push_token(&mut pointer, &token);
    match push_path(&mut pointer, &path) {
        0 => None,
        _ => Some(pointer),
    }
}

/// The pointer into `params` of the value that failed to decode as the
/// `#[params]` argument `T`. A lone element index of a params array is left
/// out, as a positional param's own index is.
#[cold]
pub(super) fn whole_path<T: DeserializeOwned>(params: &RawValue) -> Option<String> {
    let path = failure_path::<T>(params)?;
    let mut pointer = String::new();
    let tokens = push_path(&mut pointer, &path);
    let lone_index = matches!(path.iter().next(), Some(Segment::Seq { .. })) && tokens == 1;
    (tokens > 0 && !lone_index).then_some(pointer)
}

/// Whether `value` is an array or an object, the only values a failure can
/// lie inside of.
pub(super) fn is_container(value: &RawValue) -> bool {
    matches!(
        value.get().trim_start().as_bytes().first(),
        Some(b'[' | b'{')
    )
}

/// Appends the reference tokens of `path` to `pointer`, up to the first one
/// serde could not name; returns how many it appended.
pub(super) fn push_path(pointer: &mut String, path: &serde_path_to_error::Path) -> usize {
    let mut tokens = 0;
    for segment in path {
        match segment {
            Segment::Seq { index } => push_token(pointer, &index.to_string()),
            Segment::Map { key } => push_token(pointer, key),
            // An externally tagged variant's content sits under its name.
            Segment::Enum { variant } => push_token(pointer, variant),
            Segment::Unknown => break,
        }
        tokens += 1;
    }
    tokens
}

/// Appends `/token`, with `~` and `/` escaped as RFC 6901 says.
pub(super) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// A param's raw value inside `params`.
pub(super) enum Found<'a> {
    /// Element `index` of a params array.
    Element(&'a RawValue),
    /// The first member called `name` of a params object.
    Member(&'a RawValue),
}

/// Finds param `index`, called `name`, in `params`: the element at `index`
/// of an array, or the first member called `name` of an object.
#[cold]
pub(super) fn find_param<'a>(params: &'a RawValue, index: usize, name: &str) -> Option<Found<'a>> {
    struct Find<'n> {
        index: usize,
        name: &'n str,
    }

    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<Found<'de>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array or an object of params")
        }

        // Both read to the end: serde_json fails a visit that leaves
        // elements or members unread.
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            let mut at = 0;
            while let Some(value) = seq.next_element::<&RawValue>()? {
                if at == self.index {
                    found = Some(Found::Element(value));
                }
                at += 1;
            }
            Ok(found)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'_, str>>()? {
                let value = map.next_value::<&RawValue>()?;
                if found.is_none() && key == self.name {
                    found = Some(Found::Member(value));
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(params.get());
    de.deserialize_any(Find { index, name }).ok().flatten()
}
