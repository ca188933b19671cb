//! The calls of a batch file.
//!
//! A JSON array of calls, or one call per line (blank lines skipped). A
//! call is an object: `{"method": "subtract", "params": [42, 23]}`, with
//! `"notify": true` for a notification. A `jsonrpc` and an `id` member are
//! accepted and ignored, so captured requests can be replayed: the client
//! numbers the requests itself.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// One call of a batch.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The method's name.
    pub method: String,
    /// The params as written, if any.
    #[serde(default)]
    pub params: Option<Box<RawValue>>,
    /// A notification: nothing comes back.
    #[serde(default)]
    pub notify: bool,
    #[serde(default, rename = "jsonrpc")]
    _jsonrpc: Option<IgnoredAny>,
    #[serde(default, rename = "id")]
    _id: Option<IgnoredAny>,
}

/// The calls in `text`, in order.
pub fn read(text: &str) -> Result<Vec<Call>, String> {
    let calls = if text.trim_start().starts_with('[') {
        let entries: Vec<Box<RawValue>> =
            serde_json::from_str(text).map_err(|err| format!("not a JSON array: {err}"))?;
        entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                serde_json::from_str(entry.get()).map_err(|err| format!("call {index}: {err}"))
            })
            .collect::<Result<Vec<Call>, _>>()?
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(index, line)| {
                serde_json::from_str(line).map_err(|err| format!("line {}: {err}", index + 1))
            })
            .collect::<Result<Vec<Call>, _>>()?
    };
    if calls.is_empty() {
        return Err("no calls: a batch needs at least one".to_owned());
    }
    Ok(calls)
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn an_array_or_one_call_per_line() {
        let array = read(
            r#"[{"method": "subtract", "params": [42, 23]}, {"method": "update", "notify": true}]"#,
        )
        .unwrap();
        let lines = read(
            "{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"subtract\", \"params\": [42, 23]}\n\n{\"method\": \"update\", \"notify\": true}\n",
        )
        .unwrap();
        for calls in [array, lines] {
            assert_eq!(calls.len(), 2);
            assert_eq!(calls[0].method, "subtract");
            assert_eq!(calls[0].params.as_ref().unwrap().get(), "[42, 23]");
            assert!(!calls[0].notify);
            assert!(calls[1].notify && calls[1].params.is_none());
        }
    }

    #[test]
    fn mistakes_say_where() {
        let err = read("{\"method\": \"a\"}\n{\"method\": \"b\", \"parms\": []}").unwrap_err();
        assert!(err.starts_with("line 2: unknown field `parms`"), "{err}");
        let err = read(r#"[{"method": "a"}, {"params": []}]"#).unwrap_err();
        assert!(err.starts_with("call 1: missing field `method`"), "{err}");
        assert!(read("[]").unwrap_err().contains("no calls"));
        assert!(read("[{").unwrap_err().contains("not a JSON array"));
    }
}
