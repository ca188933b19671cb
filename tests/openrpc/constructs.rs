//! Every JSON Schema construct `openrpc!` maps, as property tests: for
//! values drawn from the schema, decoding into the generated type and
//! encoding again gives the value back, and a union decodes as the
//! alternative the value was made as.
//!
//! JSON numbers compare as numbers: `1` and `1.0` are one number in JSON
//! Schema, and a `number` is an `f64`, which writes `1.0`.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

mod generated {
    typed_rpc::openrpc!("tests/openrpc/specs/constructs.json");
}

use generated::*;

/// Whether `a` and `b` are the same JSON value, numbers compared as numbers.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Decodes `value` as `T` and encodes it again: the same value.
fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<T, TestCaseError> {
    let decoded: T = serde_json::from_value(value.clone())
        .map_err(|err| TestCaseError::fail(format!("{value} does not decode: {err}")))?;
    let again = serde_json::to_value(&decoded).expect("encodes");
    prop_assert!(same(value, &again), "{value} came back as {again}");
    Ok(decoded)
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _-]{0,6}"
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An object of `members` (each kept with probability one half) and of
/// other members drawn from `other`, whose names start with `x_`.
fn object(
    members: Vec<(&'static str, BoxedStrategy<Value>, bool)>,
    other: Option<BoxedStrategy<Value>>,
) -> impl Strategy<Value = Value> {
    let named: Vec<_> = members
        .into_iter()
        .map(|(name, value, required)| {
            (value, any::<bool>())
                .prop_map(move |(value, keep)| (keep || required).then(|| (name.to_owned(), value)))
        })
        .collect();
    let other = match other {
        Some(values) => prop::collection::btree_map("x_[a-z]{1,4}", values, 0..3).boxed(),
        None => Just(Default::default()).boxed(),
    };
    (named, other).prop_map(|(named, other)| {
        let mut object: Map<String, Value> = named.into_iter().flatten().collect();
        object.extend(other);
        Value::Object(object)
    })
}

fn string_value() -> BoxedStrategy<Value> {
    text().prop_map(Value::from).boxed()
}

fn tree() -> impl Strategy<Value = Value> {
    Just(json!([])).prop_recursive(4, 24, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(Value::from)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn open_objects_keep_their_other_members(
        value in object(vec![("a", string_value(), false)], Some(string_value())),
    ) {
        let decoded: OpenObject = round_trip(&value)?;
        prop_assert_eq!(decoded.extra.len(), value.as_object().unwrap().len() - usize::from(decoded.a.is_some()));
    }

    #[test]
    fn a_present_null_stays_apart_from_an_absent_member(
        value in object(vec![
            ("r", prop_oneof![Just(Value::Null), string_value()].boxed(), true),
            ("n", prop_oneof![Just(Value::Null), any::<i64>().prop_map(Value::from)].boxed(), false),
            ("any", any_json().boxed(), false),
        ], Some(any_json().boxed())),
    ) {
        round_trip::<Nullable>(&value)?;
    }

    #[test]
    fn the_alternative_with_the_most_members_wins(a in any::<i64>(), b in proptest::option::of(any::<i64>())) {
        let value = match b {
            Some(b) => json!({"a": a, "b": b}),
            None => json!({"a": a}),
        };
        let decoded: ByMembers = round_trip(&value)?;
        prop_assert_eq!(matches!(decoded, ByMembers::Object2(_)), b.is_some());
    }

    #[test]
    fn tagged_enums_come_back_as_the_variant_they_were(
        tag in text(), cents in any::<u64>(), t in any::<bool>(), n in any::<i64>(), s in text(),
        which in 0..3usize,
    ) {
        let internal = match t {
            true => json!({"kind": "tag", "tag": tag}),
            false => json!({"kind": "price_below", "cents": cents}),
        };
        let decoded: Internal = round_trip(&internal)?;
        prop_assert_eq!(matches!(decoded, Internal::Tag(_)), t);

        let adjacent = match t {
            true => json!({"t": "Num", "c": n}),
            false => json!({"t": "Text", "c": s}),
        };
        let decoded: Adjacent = round_trip(&adjacent)?;
        prop_assert_eq!(matches!(decoded, Adjacent::Num(_)), t);

        let external = [
            json!({"Download": {"url": s}}),
            json!({"Parcel": {"grams": cents as u32}}),
            json!("Pickup"),
        ];
        let decoded: External = round_trip(&external[which])?;
        let variant = match decoded {
            External::Download(_) => 0,
            External::Parcel(_) => 1,
            External::Pickup(_) => 2,
        };
        prop_assert_eq!(variant, which);
    }

    #[test]
    fn integers_keep_their_width(
        u64_ in any::<u64>(), i64_ in any::<i64>(), i32_ in any::<i32>(), u8_ in any::<u8>(), u128_ in any::<u64>(),
    ) {
        let value = json!({"u64": u64_, "i64": i64_, "i32": i32_, "u8": u8_, "u128": u128_});
        let decoded: Integers = round_trip(&value)?;
        prop_assert_eq!(decoded.u64, u64_);
        let out_of_range = json!({"u64": -1, "i64": 0, "i32": 0, "u8": 256, "u128": 0});
        prop_assert!(serde_json::from_value::<Integers>(out_of_range).is_err());
    }

    #[test]
    fn string_alternatives_are_told_apart_by_pattern(hex in "0x[0-9a-f]{1,8}", tag in "latest|earliest|pending") {
        prop_assert!(matches!(round_trip::<BlockTag>(&json!(hex))?, BlockTag::Hex(_)));
        prop_assert!(matches!(round_trip::<BlockTag>(&json!(tag))?, BlockTag::Tag(_)));
    }

    #[test]
    fn all_of_objects_are_one_struct(
        value in object(vec![("id", string_value(), true), ("size", any::<i64>().prop_map(Value::from).boxed(), false)], Some(any_json().boxed())),
    ) {
        let decoded: Merged = round_trip(&value)?;
        prop_assert_eq!(Some(&Value::from(decoded.id)), value.get("id"));
    }

    #[test]
    fn pattern_and_property_name_objects_are_maps(
        patterned in prop::collection::btree_map("x-[a-z]{1,4}", any::<i64>(), 0..4),
        named in prop::collection::btree_map("[a-z]{1,4}", any_json(), 0..4),
    ) {
        let decoded: Patterned = round_trip(&json!(patterned))?;
        prop_assert_eq!(decoded.len(), patterned.len());
        round_trip::<Named>(&json!(named))?;
    }

    #[test]
    fn recursive_arrays_and_aliases_of_them_round_trip(value in tree()) {
        round_trip::<Tree>(&value)?;
        round_trip::<TreeAlias>(&value)?;
    }

    #[test]
    fn tuples_and_lists_of_types_round_trip(
        s in text(), n in any::<i64>(),
        mixed in prop_oneof![Just(Value::Null), text().prop_map(Value::from), any::<i64>().prop_map(Value::from), any::<bool>().prop_map(Value::from)],
    ) {
        let pair: Pair = round_trip(&json!([s, n]))?;
        prop_assert_eq!(pair.1, n);
        round_trip::<Mixed>(&mixed)?;
    }
}
