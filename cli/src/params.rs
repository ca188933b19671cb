//! A call's params from the command line.
//!
//! ```text
//! '[42, 23]'  '{"minuend": 42}'     one JSON array or object: the params as they are
//! 42 23 Ada                          positional values: [42, 23, "Ada"]
//! minuend=42 name=Ada                named values:      {"minuend": 42, "name": "Ada"}
//! tags:='["a"]'                      a named value that must be JSON
//! ```
//!
//! A value is taken as JSON when it parses as JSON, else as a string: `42`
//! is a number, `Ada` the string `"Ada"`, and `'"42"'` the string `"42"`.

use serde_json::value::RawValue;

/// The params a call sends, as JSON text: absent, an array or an object.
pub fn from_args(args: &[String]) -> Result<Option<Box<RawValue>>, String> {
    match args {
        [] => Ok(None),
        [only] if is_container(only) => raw(only.clone()).map(Some),
        _ => {
            let named: Vec<(&str, Value<'_>)> =
                args.iter().filter_map(|arg| split_named(arg)).collect();
            match named.len() {
                0 => positional(args).map(Some),
                n if n == args.len() => named_object(named).map(Some),
                _ => Err(
                    "params are either all positional (VALUE ...) or all named (KEY=VALUE ...), \
                     not both"
                        .to_owned(),
                ),
            }
        }
    }
}

/// Whether `arg` is a JSON array or object, to be sent whole.
fn is_container(arg: &str) -> bool {
    arg.trim_start().starts_with(['[', '{']) && serde_json::from_str::<&RawValue>(arg).is_ok()
}

fn positional(args: &[String]) -> Result<Box<RawValue>, String> {
    let values: Vec<Box<RawValue>> = args.iter().map(|arg| lenient(arg)).collect();
    let items: Vec<&str> = values.iter().map(|value| value.get()).collect();
    raw(format!("[{}]", items.join(",")))
}

fn named_object(named: Vec<(&str, Value<'_>)>) -> Result<Box<RawValue>, String> {
    let mut members: Vec<(&str, Box<RawValue>)> = Vec::with_capacity(named.len());
    for (key, value) in named {
        if members.iter().any(|(seen, _)| *seen == key) {
            return Err(format!("the param `{key}` is given twice"));
        }
        let value = match value {
            Value::Lenient(text) => lenient(text),
            Value::Json(text) => serde_json::from_str::<Box<RawValue>>(text)
                .map_err(|err| format!("`{key}:=` needs a JSON value: {err}"))?,
        };
        members.push((key, value));
    }
    let text: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{}:{}", json_string(key), value.get()))
        .collect();
    raw(format!("{{{}}}", text.join(",")))
}

/// The value of a named param, as written after its key.
enum Value<'a> {
    /// `KEY=VALUE`: JSON if it parses, else a string.
    Lenient(&'a str),
    /// `KEY:=JSON`: JSON only.
    Json(&'a str),
}

/// `KEY=VALUE` or `KEY:=JSON`, where a key is a name (letters, digits, `_`,
/// `-`, `.`, `$`, not starting with a digit): anything else is a positional value.
fn split_named(arg: &str) -> Option<(&str, Value<'_>)> {
    let end = arg.find('=')?;
    let (key, value) = (&arg[..end], &arg[end + 1..]);
    let (key, value) = match key.strip_suffix(':') {
        Some(key) => (key, Value::Json(value)),
        None => (key, Value::Lenient(value)),
    };
    let is_name = key.chars().next().is_some_and(|c| !c.is_ascii_digit())
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$'));
    is_name.then_some((key, value))
}

/// `text` as JSON if it is JSON, else as a JSON string.
fn lenient(text: &str) -> Box<RawValue> {
    serde_json::from_str::<Box<RawValue>>(text)
        .unwrap_or_else(|_| RawValue::from_string(json_string(text)).expect("a JSON string"))
}

fn json_string(text: &str) -> String {
    // A `str` always serializes.
    serde_json::to_string(text).unwrap_or_default()
}

fn raw(text: String) -> Result<Box<RawValue>, String> {
    RawValue::from_string(text).map_err(|err| format!("invalid params: {err}"))
}

#[cfg(test)]
mod tests {
    use super::from_args;

    fn params(args: &[&str]) -> Result<Option<String>, String> {
        let args: Vec<String> = args.iter().map(|&arg| arg.to_owned()).collect();
        from_args(&args).map(|raw| raw.map(|raw| raw.get().to_owned()))
    }

    #[test]
    fn one_array_or_object_is_sent_as_it_is() {
        assert_eq!(params(&["[42, 23]"]).unwrap().unwrap(), "[42, 23]");
        assert_eq!(
            params(&[r#"{"minuend": 42}"#]).unwrap().unwrap(),
            r#"{"minuend": 42}"#
        );
        assert_eq!(params(&[]).unwrap(), None);
    }

    #[test]
    fn positional_values_are_json_or_strings() {
        assert_eq!(
            params(&["42", "-1.5", "Ada", "\"7\"", "true", "[1]", "1+1=2"])
                .unwrap()
                .unwrap(),
            r#"[42,-1.5,"Ada","7",true,[1],"1+1=2"]"#
        );
    }

    #[test]
    fn named_values_are_json_or_strings_and_colon_equals_is_json_only() {
        assert_eq!(
            params(&["minuend=42", "name=Ada Lovelace", "tags:=[\"a\"]", "empty="])
                .unwrap()
                .unwrap(),
            r#"{"minuend":42,"name":"Ada Lovelace","tags":["a"],"empty":""}"#
        );
        let err = params(&["tags:=[a"]).unwrap_err();
        assert!(err.contains("`tags:=` needs a JSON value"), "{err}");
    }

    #[test]
    fn mixed_or_repeated_params_are_refused() {
        assert!(params(&["42", "b=1"]).unwrap_err().contains("not both"));
        assert!(
            params(&["a=1", "a=2"])
                .unwrap_err()
                .contains("`a` is given twice")
        );
    }
}
