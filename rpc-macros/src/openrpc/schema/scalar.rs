//! Scalars: integers of the width their schema says, and `enum`/`const`.

use quote::quote;
use serde_json::{Map, Value};

use super::Ty;

/// The values of an `enum` whose values are all strings, or of a string
/// `const`: an enum of unit variants.
pub fn string_enum(object: &Map<String, Value>) -> Option<Vec<String>> {
    let values = match (object.get("const"), object.get("enum")) {
        (Some(Value::String(value)), _) => return Some(vec![value.clone()]),
        (_, Some(Value::Array(values))) => values,
        _ => return None,
    };
    let strings: Option<Vec<String>> = values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect();
    strings.filter(|s| !s.is_empty())
}

/// The type of a non-string `enum` or `const`: the JSON type its values
/// share (`Option` of it when `null` is one of them); `None` for a schema
/// with neither; an error saying why when the values share no type.
pub fn of_values(object: &Map<String, Value>) -> Option<Result<Ty, String>> {
    let values: Vec<&Value> = match (object.get("const"), object.get("enum")) {
        (Some(value), _) => vec![value],
        (_, Some(Value::Array(values))) => values.iter().collect(),
        (_, Some(_)) => return Some(Err("an `enum` that is not an array".into())),
        _ => return None,
    };
    let nullable = values.iter().any(|v| v.is_null());
    let mut kinds = values.iter().filter(|v| !v.is_null()).map(|v| match v {
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() => "unsigned",
        Value::Number(n) if n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        _ => "structured",
    });
    let first = kinds.next();
    let all_integers = first.is_some_and(|k| k == "unsigned" || k == "integer");
    let same =
        kinds.all(|k| Some(k) == first || (all_integers && (k == "unsigned" || k == "integer")));
    let ty = match (first, same) {
        (None, _) => Ty {
            tokens: quote!(()),
            nullable: true,
        },
        (Some("boolean"), true) => Ty::new(quote!(bool)),
        (Some("unsigned" | "integer"), true) => Ty::new(quote!(i64)),
        (Some("number"), true) => Ty::new(quote!(f64)),
        (Some("string"), true) => Ty::new(quote!(::std::string::String)),
        _ => {
            return Some(Err(
                "an `enum` or `const` of arrays, objects or of values of several types is not supported".into(),
            ));
        }
    };
    Some(Ok(match (nullable, first.is_some()) {
        (true, true) => ty.option(),
        _ => ty,
    }))
}

/// The Rust integers, narrowest first, with their bounds.
const WIDTHS: &[(&str, f64, f64)] = &[
    ("u8", 0.0, u8::MAX as f64),
    ("i8", i8::MIN as f64, i8::MAX as f64),
    ("u16", 0.0, u16::MAX as f64),
    ("i16", i16::MIN as f64, i16::MAX as f64),
    ("u32", 0.0, u32::MAX as f64),
    ("i32", i32::MIN as f64, i32::MAX as f64),
    ("u64", 0.0, u64::MAX as f64),
    ("i64", i64::MIN as f64, i64::MAX as f64),
    ("u128", 0.0, u128::MAX as f64),
    ("i128", i128::MIN as f64, i128::MAX as f64),
];

/// The Rust integer of an `integer` schema: its `format` (`int32`,
/// `uint64`, `int128`, ...), else the narrowest type holding both of its
/// `minimum` and `maximum` (our documents give those in place of formats
/// strict validators refuse), else `u64` for `minimum: 0` and `i64` with
/// no bounds. A width no Rust integer has is an error saying so.
pub fn integer(object: &Map<String, Value>) -> Result<Ty, String> {
    let name = |ty: &str| {
        let ident = proc_macro2::Ident::new(ty, proc_macro2::Span::call_site());
        Ty::new(quote!(#ident))
    };
    if let Some(format) = object.get("format").and_then(Value::as_str) {
        let rust = match format {
            "int8" | "int16" | "int32" | "int64" | "int128" => Some(format.replace("int", "i")),
            "uint8" | "uint16" | "uint32" | "uint64" | "uint128" => {
                Some(format.replace("uint", "u"))
            }
            "uint" => Some("u32".to_owned()),
            "int" => Some("i32".to_owned()),
            _ => None,
        };
        if let Some(rust) = rust {
            return Ok(name(&rust));
        }
        if let Some(bits) = format
            .strip_prefix("uint")
            .or_else(|| format.strip_prefix("int"))
            && bits.parse::<u32>().is_ok_and(|bits| bits > 128)
        {
            return Err(format!(
                "an integer of format `{format}` is wider than any Rust integer"
            ));
        }
    }
    // Compared as doubles: exact enough to tell the widths apart, and
    // 128-bit bounds are written as doubles.
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let ty = match (bound("minimum"), bound("maximum")) {
        (Some(min), Some(max)) => WIDTHS
            .iter()
            .find(|(_, lo, hi)| *lo <= min && max <= *hi)
            .map_or("i128", |(ty, _, _)| ty),
        (Some(min), None) if min >= 0.0 => "u64",
        _ => "i64",
    };
    Ok(name(ty))
}
