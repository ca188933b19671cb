//! Schemas that strict validators accept: `schemars` writes Rust's widths
//! as `format`s JSON Schema does not define (`int64`, `uint8`, `double`),
//! which ajv in its default strict mode refuses and which make client
//! generators such as `@open-rpc/generator` refuse calls; here each becomes
//! the bounds it means (`minimum`/`maximum`), which every validator reads
//! and `openrpc!` turns back into the same Rust width.

use serde_json::{Map, Value};

/// The bounds of the integer formats `schemars` writes. 128-bit bounds are
/// the nearest doubles, as JSON readers take numbers that large.
fn bounds(format: &str) -> Option<(Value, Value)> {
    let exact = |lo: i64, hi: u64| Some((Value::from(lo), Value::from(hi)));
    match format {
        "int8" => exact(i8::MIN.into(), i8::MAX as u64),
        "int16" => exact(i16::MIN.into(), i16::MAX as u64),
        "int32" => exact(i32::MIN.into(), i32::MAX as u64),
        "int64" | "int" => exact(i64::MIN, i64::MAX as u64),
        "uint8" => exact(0, u8::MAX.into()),
        "uint16" => exact(0, u16::MAX.into()),
        "uint32" => exact(0, u32::MAX.into()),
        "uint64" | "uint" => exact(0, u64::MAX),
        "int128" => Some((Value::from(i128::MIN as f64), Value::from(i128::MAX as f64))),
        "uint128" => Some((Value::from(0), Value::from(u128::MAX as f64))),
        _ => None,
    }
}

/// Rewrites, everywhere in `value`, the integer and number formats of
/// Rust's widths as bounds.
pub fn standard_formats(value: &mut Value) {
    match value {
        Value::Object(object) => {
            rewrite(object);
            object.values_mut().for_each(standard_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(standard_formats),
        _ => {}
    }
}

fn rewrite(object: &mut Map<String, Value>) {
    let Some(format) = object.get("format").and_then(Value::as_str) else {
        return;
    };
    if matches!(format, "double" | "float") {
        object.remove("format");
        return;
    }
    let Some((lo, hi)) = bounds(format) else {
        return;
    };
    object.remove("format");
    // A bound the schema sets already (`minimum: 1` of a `NonZeroU32`) is
    // the tighter one.
    object.entry("minimum").or_insert(lo);
    object.entry("maximum").or_insert(hi);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rust_widths_become_bounds_and_float_formats_go() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "format": "uint64", "minimum": 0},
                "b": {"type": ["integer", "null"], "format": "int8"},
                "c": {"type": "number", "format": "double"},
                "d": {"type": "string", "format": "date-time"},
                "e": {"type": "integer", "format": "uint32", "minimum": 1}
            }
        });
        standard_formats(&mut schema);
        assert_eq!(
            schema["properties"],
            json!({
                "a": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64},
                "b": {"type": ["integer", "null"], "minimum": -128, "maximum": 127},
                "c": {"type": "number"},
                "d": {"type": "string", "format": "date-time"},
                "e": {"type": "integer", "minimum": 1, "maximum": 4294967295u64}
            })
        );
    }
}
