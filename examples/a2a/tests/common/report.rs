//! Reading the JSON reports the other languages' client scripts print.
//! Mounted with `#[path = "common/report.rs"]`.

use serde_json::Value;

/// `value` as a string, or a panic saying what it was.
pub fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{value} is not a string"))
}

/// `value` as an array, or a panic saying what it was.
pub fn list(value: &Value) -> &[Value] {
    value
        .as_array()
        .unwrap_or_else(|| panic!("{value} is not an array"))
}
