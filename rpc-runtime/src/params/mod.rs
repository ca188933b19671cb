//! Decoding a method's params, by position or by name, with precise `-32602` errors.
//!
//! Params are decoded straight from the request's raw JSON with serde
//! visitors: each argument is deserialized into its own slot as its element
//! (positional) or member (named) is read, with no intermediate
//! `serde_json::Value`. A failure names the param, its position and the
//! reason:
//!
//! ```json
//! {"code": -32602, "message": "Invalid params",
//!  "data": {"param": "subtrahend", "position": 1, "reason": "invalid type: string \"a\", expected i64"}}
//! ```
//!
//! A param left out is decoded as serde decodes a missing struct field: an
//! `Option` becomes `None`, anything else is a "missing required param" error.
//!
//! # Where inside a param
//!
//! When the failing value lies inside a param (a field of a struct, an
//! element of a `Vec`, a value of a map), `data` also has `path`: the JSON
//! Pointer (RFC 6901) of that value, taken from the root of `params`, so a
//! named param's path starts with its name and a positional one's with its
//! index:
//!
//! ```json
//! {"param": "message", "position": 0, "path": "/message/parts/0", "reason": "missing field `text`"}
//! ```
//!
//! A missing field is reported at the object that lacks it (the pointer
//! resolves to a value the caller sent; the reason names the field). `path`
//! is left out when `param` and `position` already say where: a failure of
//! the param's value itself, and for a `#[params]` array (a variadic
//! method), one of its own elements. Where serde cannot tell the way down
//! (inside an untagged or internally tagged enum), the path stops at the
//! deepest value it can name.
//!
//! The path is found on the error path only: once a decode has failed, the
//! failing value is decoded again with a deserializer that tracks where it
//! is. A call that decodes does exactly the work it did without paths.

mod failure;
mod missing;
mod path;

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::value::RawValue;

use crate::{ErrorObject, MethodInfo};
use failure::{absent_reason, invalid_params, param_error, serde_reason};
use missing::{Absent, Missing};
use path::{failure_path, param_path, push_token, whole_path};

/// A method's arguments, decodable from a request's `params`.
///
/// Implemented for tuples of up to 16 deserializable types (one element per
/// argument, each read by position or by name) and for [`Whole`] (the whole
/// `params` value bound to one argument). The generated dispatcher calls it;
/// it is public for services written by hand.
///
/// ```
/// use typed_rpc::{DecodeParams, MethodInfo, ParamInfo};
/// use serde_json::value::RawValue;
///
/// static SUBTRACT: MethodInfo = MethodInfo::method("subtract")
///     .params(&[ParamInfo::new("minuend", "i64"), ParamInfo::new("subtrahend", "i64")]);
///
/// let named: &RawValue = serde_json::from_str(r#"{"subtrahend": 23, "minuend": 42}"#).unwrap();
/// assert_eq!(<(i64, i64)>::decode(Some(named), &SUBTRACT).unwrap(), (42, 23));
///
/// let wrong: &RawValue = serde_json::from_str(r#"[42, "a"]"#).unwrap();
/// let err = <(i64, i64)>::decode(Some(wrong), &SUBTRACT).unwrap_err();
/// assert_eq!(err.code(), -32602);
/// assert_eq!(
///     err.data().unwrap().get(),
///     r#"{"param":"subtrahend","position":1,"reason":"invalid type: string \"a\", expected i64"}"#
/// );
/// ```
pub trait DecodeParams: Sized {
    /// Decodes `params` (absent, an array or an object) for `method`.
    fn decode(params: Option<&RawValue>, method: &'static MethodInfo) -> Result<Self, ErrorObject>;
}

/// The whole `params` value bound to one argument (`#[params]`): a struct for
/// MCP-, A2A- or LSP-style methods, a `Vec` for variadic ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Whole<T>(pub T);

impl<T: DeserializeOwned> DecodeParams for Whole<T> {
    /// Members that `T` has no field for are refused, however deep, unless
    /// the method [allows unknown params](MethodInfo::allows_unknown_params):
    /// the user's struct needs no `#[serde(deny_unknown_fields)]`.
    fn decode(params: Option<&RawValue>, method: &'static MethodInfo) -> Result<Self, ErrorObject> {
        let param = || method.param_list().first().map(|p| p.name());
        let mut unknown = None;
        let decoded = match params {
            Some(raw) if method.allows_unknown_params() => serde_json::from_str(raw.get()),
            Some(raw) => {
                let mut de = serde_json::Deserializer::from_str(raw.get());
                // Only the first is reported, as serde reports one error.
                serde_ignored::deserialize(&mut de, |path| {
                    unknown.get_or_insert_with(|| Unknown::at(&path));
                })
            }
            None => T::deserialize(Absent).map_err(de::Error::custom),
        };
        match (decoded, unknown) {
            (Ok(decoded), None) => Ok(Whole(decoded)),
            (Ok(_), Some(unknown)) => Err(unknown.into_error(param())),
            (Err(err), _) => {
                let reason = match params {
                    Some(_) => serde_reason(&err),
                    None => absent_reason(&err),
                };
                let path = params.and_then(|raw| whole_path::<T>(raw));
                Err(invalid_params(param(), None, path.as_deref(), &reason))
            }
        }
    }
}

/// A member of a `#[params]` value that its type has no place for.
struct Unknown {
    /// Its JSON pointer into the params.
    pointer: String,
    /// Its name; `None` for an element of an array.
    name: Option<String>,
}

impl Unknown {
    #[cold]
    fn at(path: &serde_ignored::Path<'_>) -> Unknown {
        let mut pointer = String::new();
        push_ignored_path(&mut pointer, path);
        let name = match path {
            serde_ignored::Path::Map { key, .. } => Some(key.clone()),
            _ => None,
        };
        Unknown { pointer, name }
    }

    #[cold]
    fn into_error(self, param: Option<&str>) -> ErrorObject {
        let reason = match &self.name {
            Some(name) => format!("unknown field `{name}`"),
            None => "unexpected element".to_owned(),
        };
        let path = Some(self.pointer).filter(|pointer| !pointer.is_empty());
        invalid_params(param, None, path.as_deref(), &reason)
    }
}

/// Appends the reference tokens of `path`, root first, to `pointer`.
fn push_ignored_path(pointer: &mut String, path: &serde_ignored::Path<'_>) {
    use serde_ignored::Path;
    match path {
        Path::Root => {}
        Path::Seq { parent, index } => {
            push_ignored_path(pointer, parent);
            push_token(pointer, &index.to_string());
        }
        Path::Map { parent, key } => {
            push_ignored_path(pointer, parent);
            push_token(pointer, key);
        }
        // Wrappers that add no level to the JSON.
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => {
            push_ignored_path(pointer, parent);
        }
    }
}

/// The slots a tuple's elements are decoded into, one `Option` per argument.
///
/// Each method is a `match` on the argument's index, so every element is
/// deserialized straight into its own type.
trait Slots {
    const LEN: usize;

    /// Every slot empty.
    fn empty() -> Self;

    /// Reads the next array element into slot `index`; `false` when the array ended.
    fn next_element<'de, A: SeqAccess<'de>>(
        &mut self,
        index: usize,
        seq: &mut A,
    ) -> Result<bool, A::Error>;

    /// Reads the current object member's value into slot `index`.
    fn next_value<'de, A: MapAccess<'de>>(
        &mut self,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error>;

    /// Fills slot `index` for a param that was left out; `false` if it is required.
    fn fill_missing(&mut self, index: usize) -> bool;

    /// Where inside `value` decoding it as param `index` fails; `None` if it
    /// decodes.
    fn failure_path(index: usize, value: &RawValue) -> Option<serde_path_to_error::Path>;
}

macro_rules! tuple_params {
    ($($idx:tt $T:ident),*) => {
        impl<$($T: DeserializeOwned),*> Slots for ($(Option<$T>,)*) {
            const LEN: usize = [$($idx),*].len();

            fn empty() -> Self {
                ($(None::<$T>,)*)
            }

            #[inline]
            fn next_element<'de, Seq: SeqAccess<'de>>(&mut self, index: usize, seq: &mut Seq) -> Result<bool, Seq::Error> {
                match index {
                    $($idx => match seq.next_element()? {
                        Some(value) => self.$idx = Some(value),
                        None => return Ok(false),
                    },)*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            #[inline]
            fn next_value<'de, Map: MapAccess<'de>>(&mut self, index: usize, map: &mut Map) -> Result<(), Map::Error> {
                match index {
                    $($idx => self.$idx = Some(map.next_value()?),)*
                    _ => { map.next_value::<IgnoredAny>()?; }
                }
                Ok(())
            }

            fn fill_missing(&mut self, index: usize) -> bool {
                match index {
                    $($idx => self.$idx = $T::deserialize(Missing).ok(),)*
                    _ => return false,
                }
                match index {
                    $($idx => self.$idx.is_some(),)*
                    _ => false,
                }
            }

            fn failure_path(index: usize, value: &RawValue) -> Option<serde_path_to_error::Path> {
                match index {
                    $($idx => failure_path::<$T>(value),)*
                    _ => None,
                }
            }
        }

        impl<$($T: DeserializeOwned),*> DecodeParams for ($($T,)*) {
            #[inline]
            #[allow(non_snake_case)]
            fn decode(params: Option<&RawValue>, method: &'static MethodInfo) -> Result<Self, ErrorObject> {
                let slots: ($(Option<$T>,)*) = decode_slots(params, method)?;
                match slots {
                    ($(Some($T),)*) => Ok(($($T,)*)),
                    // `decode_slots` fills every slot or fails; this arm is never taken.
                    _ => Err(ErrorObject::internal_error()),
                }
            }
        }
    };
}

tuple_params!(0 A);
tuple_params!(0 A, 1 B);
tuple_params!(0 A, 1 B, 2 C);
tuple_params!(0 A, 1 B, 2 C, 3 D);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L, 12 M);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L, 12 M, 13 N);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L, 12 M, 13 N, 14 O);
tuple_params!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L, 12 M, 13 N, 14 O, 15 P);

impl Slots for () {
    const LEN: usize = 0;

    fn empty() -> Self {}

    fn next_element<'de, A: SeqAccess<'de>>(
        &mut self,
        _: usize,
        _: &mut A,
    ) -> Result<bool, A::Error> {
        Ok(false)
    }

    fn next_value<'de, A: MapAccess<'de>>(
        &mut self,
        _: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        map.next_value::<IgnoredAny>().map(drop)
    }

    fn fill_missing(&mut self, _: usize) -> bool {
        false
    }

    fn failure_path(_: usize, _: &RawValue) -> Option<serde_path_to_error::Path> {
        None
    }
}

impl DecodeParams for () {
    #[inline]
    fn decode(params: Option<&RawValue>, method: &'static MethodInfo) -> Result<Self, ErrorObject> {
        decode_slots(params, method)
    }
}

/// Decodes `params` into fresh slots, filling every one or failing.
#[inline]
fn decode_slots<S: Slots>(
    params: Option<&RawValue>,
    method: &'static MethodInfo,
) -> Result<S, ErrorObject> {
    let mut slots = S::empty();
    let mut cursor = Cursor::new(method);
    if let Some(raw) = params {
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let read = de.deserialize_any(ParamsVisitor {
            slots: &mut slots,
            cursor: &mut cursor,
        });
        if let Err(err) = read {
            return Err(cursor.into_error::<S>(&err, raw));
        }
    }
    if cursor.filled != first(S::LEN) {
        fill_missing(&mut slots, &cursor)?;
    }
    Ok(slots)
}

/// Fills the slots of the params that were left out, or fails on the first
/// required one.
fn fill_missing<S: Slots>(slots: &mut S, cursor: &Cursor) -> Result<(), ErrorObject> {
    for index in 0..S::LEN {
        if !cursor.is_filled(index) && !slots.fill_missing(index) {
            return Err(param_error(cursor.method, index, "missing required param"));
        }
    }
    Ok(())
}

/// Where the decoder is, and why it stopped when the reason is ours, not serde's.
///
/// It also reads the member names of named params (as a [`DeserializeSeed`]):
/// each name becomes the index of its param, or [`SKIP`] for an unknown
/// name the method allows.
struct Cursor {
    method: &'static MethodInfo,
    /// The index of the param whose value failed to read.
    at: usize,
    /// Bit `i` is set once param `i` is read.
    filled: u32,
    failure: Option<Failure>,
}

/// The `filled` bits of the first `n` params (at most 16, as tuples).
const fn first(n: usize) -> u32 {
    !(u32::MAX << n)
}

/// The index of a named param the method does not have but allows: its
/// value is read and dropped.
const SKIP: usize = usize::MAX;

enum Failure {
    /// The array of positional params goes on after the last param.
    TooMany,
    Unknown(String),
    Duplicate(usize),
}

impl Cursor {
    fn new(method: &'static MethodInfo) -> Self {
        Cursor {
            method,
            at: 0,
            filled: 0,
            failure: None,
        }
    }

    fn is_filled(&self, index: usize) -> bool {
        self.filled & (1 << index) != 0
    }

    fn fill(&mut self, index: usize) {
        self.filled |= 1 << index;
    }

    /// [`SKIP`] for a name no param has, if the method allows it.
    #[cold]
    fn unknown<E: de::Error>(&mut self, name: &str) -> Result<usize, E> {
        if self.method.allows_unknown_params() {
            return Ok(SKIP);
        }
        self.failure = Some(Failure::Unknown(name.to_owned()));
        Err(E::custom("unknown param"))
    }

    /// Turns a failed read into the `-32602` error the caller sees.
    #[cold]
    fn into_error<S: Slots>(self, err: &serde_json::Error, params: &RawValue) -> ErrorObject {
        let method = self.method;
        let expected = method.param_list().len();
        match self.failure {
            Some(Failure::TooMany) => {
                let given = count_elements(params);
                let reason = format!(
                    "too many params: `{}` takes {expected}, got {given}",
                    method.name()
                );
                invalid_params(None, Some(expected), None, &reason)
            }
            Some(Failure::Unknown(name)) => {
                let known: Vec<_> = method
                    .param_list()
                    .iter()
                    .map(|p| format!("`{}`", p.name()))
                    .collect();
                let reason = match known.len() {
                    0 => format!("unknown param: `{}` takes no params", method.name()),
                    _ => format!("unknown param; expected one of {}", known.join(", ")),
                };
                invalid_params(Some(&name), None, None, &reason)
            }
            Some(Failure::Duplicate(index)) => param_error(method, index, "duplicate param"),
            None => {
                let path = param_path::<S>(method, self.at, params);
                let name = method.param_list().get(self.at).map(|p| p.name());
                invalid_params(name, Some(self.at), path.as_deref(), &serde_reason(err))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for &mut Cursor {
    type Value = usize;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for &mut Cursor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a param name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        // Compared byte by byte: param names are short, and a call of
        // `memcmp` per name costs more than the comparison.
        let same = |param: &crate::ParamInfo| {
            param.name().len() == name.len() && param.name().bytes().eq(name.bytes())
        };
        let params = self.method.param_list();
        // Callers mostly name params in the order they are declared: the
        // first one not read yet is tried before the others.
        let next = self.filled.trailing_ones() as usize;
        let index = match params.get(next) {
            Some(param) if same(param) => next,
            _ => match params.iter().position(same) {
                Some(index) if self.is_filled(index) => {
                    self.failure = Some(Failure::Duplicate(index));
                    return Err(E::custom("duplicate param"));
                }
                Some(index) => index,
                None => return self.unknown(name),
            },
        };
        self.fill(index);
        Ok(index)
    }
}

struct ParamsVisitor<'s, S> {
    slots: &'s mut S,
    cursor: &'s mut Cursor,
}

impl<'de, S: Slots> Visitor<'de> for ParamsVisitor<'_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array or an object of params")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        for index in 0..S::LEN {
            let read = self
                .slots
                .next_element(index, &mut seq)
                .inspect_err(|_| self.cursor.at = index)?;
            if !read {
                self.cursor.filled = first(index);
                return Ok(());
            }
        }
        self.cursor.filled = first(S::LEN);
        // Every param is read. An element after them fails the read when
        // serde_json finds the array does not end here; that failure is
        // then too many params.
        self.cursor.failure = Some(Failure::TooMany);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // The cursor reads each name, checks it and marks its param read.
        while let Some(index) = map.next_key_seed(&mut *self.cursor)? {
            self.slots
                .next_value(index, &mut map)
                .inspect_err(|_| self.cursor.at = index)?;
        }
        Ok(())
    }
}

/// The number of elements of a JSON array (0 for anything else).
#[cold]
fn count_elements(array: &RawValue) -> usize {
    struct Count;

    impl<'de> Visitor<'de> for Count {
        type Value = usize;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                count += 1;
            }
            Ok(count)
        }
    }

    let mut de = serde_json::Deserializer::from_str(array.get());
    de.deserialize_seq(Count).unwrap_or(0)
}
