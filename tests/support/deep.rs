//! JSON nested 100,000 deep: valid, and deeper than any recursive reader
//! survives on a tokio worker's 2 MiB stack.

/// How deep the nesting goes.
pub const DEEP: usize = 100_000;

/// `DEEP` empty arrays, one inside the other.
pub fn deep_array() -> String {
    format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP))
}

/// `DEEP` objects, one inside the other, around a `1`.
pub fn deep_object() -> String {
    format!("{}1{}", r#"{"a":"#.repeat(DEEP), "}".repeat(DEEP))
}
