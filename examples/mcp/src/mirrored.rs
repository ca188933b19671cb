//! Tool arguments mirrored into HTTP headers (2026-07-28, `x-mcp-header`):
//! a property of a tool's input schema marked `"x-mcp-header": "Region"`
//! travels, besides the body, as `Mcp-Param-Region`, for intermediaries
//! that route on headers. Servers check header against body; clients add
//! the headers.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderMap;
use serde_json::{Map, Value};
use typed_rpc::ErrorObject;

use crate::error;
use crate::http::headers::header_text;

/// The keyword that marks a mirrored property.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// One mirrored argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mirrored {
    /// Where its value is in the arguments: a chain of property names.
    pub(crate) path: Vec<String>,
    /// The header's name after `Mcp-Param-`.
    pub(crate) header: String,
}

impl Mirrored {
    /// The full header name, lower case.
    pub(crate) fn header_name(&self) -> String {
        format!("mcp-param-{}", self.header.to_ascii_lowercase())
    }

    /// The argument in `arguments`, when it is there and not `null`.
    fn value<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        let value = self
            .path
            .iter()
            .try_fold(arguments?, |value, name| value.get(name))?;
        (!value.is_null()).then_some(value)
    }
}

/// The mirrored arguments of a tool's input `schema`, or why its
/// annotations are invalid: a name that is no HTTP token, two names equal
/// but for case, a property not of a primitive type, or an annotation that
/// no chain of `properties` from the root reaches (under `items`, `anyOf`,
/// `$defs` and the like).
pub(crate) fn of_schema(schema: &Map<String, Value>) -> Result<Vec<Mirrored>, String> {
    let mut found = Vec::new();
    walk(schema, true, &mut Vec::new(), &mut found)?;
    let mut names: Vec<String> = found
        .iter()
        .map(|m| m.header.to_ascii_lowercase())
        .collect();
    names.sort();
    if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!(
            "two properties are mirrored into Mcp-Param-{}",
            pair[0]
        ));
    }
    Ok(found)
}

/// Looks for the keyword in `schema`, which a chain of `properties` from
/// the root reaches when `chained`.
fn walk(
    schema: &Map<String, Value>,
    chained: bool,
    path: &mut Vec<String>,
    found: &mut Vec<Mirrored>,
) -> Result<(), String> {
    if let Some(header) = schema.get(KEYWORD) {
        let at = path.join(".");
        if !chained || path.is_empty() {
            return Err(format!(
                "`{KEYWORD}` at `{at}` is not on a chain of `properties` from the root"
            ));
        }
        let header = header
            .as_str()
            .filter(|header| is_token(header))
            .ok_or_else(|| format!("`{KEYWORD}` of `{at}` is not an HTTP header name"))?;
        let kind = schema.get("type").and_then(Value::as_str);
        // Not `number`: its text has no one canonical form to compare.
        if !matches!(kind, Some("string" | "integer" | "boolean")) {
            return Err(format!("`{at}` is mirrored but of no primitive type"));
        }
        found.push(Mirrored {
            path: path.clone(),
            header: header.to_owned(),
        });
    }
    for (key, value) in schema {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties {
                    if let Value::Object(property) = property {
                        path.push(name.clone());
                        walk(property, chained, path, found)?;
                        path.pop();
                    }
                }
            }
            // Data, not schemas.
            ("enum" | "const" | "default" | "examples", _) => {}
            // Subschemas off the chain (or maps of them, as `$defs` is).
            (_, Value::Object(inner)) => walk(inner, false, path, found)?,
            (_, Value::Array(items)) => {
                for inner in items.iter().filter_map(Value::as_object) {
                    walk(inner, false, path, found)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether `name` is an HTTP token (RFC 9110 `1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// `text` as a header carries it: as it is when it is plain visible ASCII
/// without surrounding space, else Base64-wrapped (`=?base64?...?=`).
pub(crate) fn encode(text: &str) -> String {
    let plain = text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\t')
        && text.trim() == text
        && !(text.starts_with("=?base64?") && text.ends_with("?="));
    match plain {
        true => text.to_owned(),
        false => format!("=?base64?{}?=", STANDARD.encode(text.as_bytes())),
    }
}

/// The headers a call with `arguments` sends for `mirrored`: name, value.
pub(crate) fn headers(mirrored: &[Mirrored], arguments: Option<&Value>) -> Vec<(String, String)> {
    mirrored
        .iter()
        .filter_map(|m| {
            let text = match m.value(arguments)? {
                Value::String(text) => text.clone(),
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                _ => return None,
            };
            Some((m.header_name(), encode(&text)))
        })
        .collect()
}

/// Checks that `headers` say what `arguments` say of each of `mirrored`:
/// a header for every argument present, none for one absent, the same
/// value (`-32020` otherwise).
pub(crate) fn check(
    headers: &HeaderMap,
    mirrored: &[Mirrored],
    arguments: Option<&Value>,
) -> Result<(), ErrorObject> {
    for m in mirrored {
        let name = m.header_name();
        let told = header_text(headers, &name)?;
        let same = match (m.value(arguments), told.as_deref()) {
            (None, None) => true,
            (Some(Value::String(text)), Some(told)) => told == text,
            (Some(Value::Bool(flag)), Some(told)) => told == flag.to_string(),
            (Some(Value::Number(number)), Some(told)) => {
                told.parse::<f64>().ok() == number.as_f64()
            }
            _ => false,
        };
        if !same {
            return Err(error::header_mismatch(&format!(
                "Mcp-Param-{} header does not match argument `{}`",
                m.header,
                m.path.join(".")
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn mirrored_properties_are_found_and_checked() {
        let good = schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "inner": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Id"}}},
        }}));
        let found = of_schema(&good).unwrap();
        assert_eq!(found.len(), 2);
        assert!(found.contains(&Mirrored {
            path: vec!["inner".into(), "id".into()],
            header: "Id".into()
        }));
        let bad = [
            json!({"properties": {"x": {"type": "object", "x-mcp-header": "X"}}}),
            json!({"properties": {"x": {"type": "number", "x-mcp-header": "X"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}),
            json!({"properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "L"}}}}),
            json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"$defs": {"d": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
        ];
        for bad in bad {
            assert!(of_schema(&schema(bad.clone())).is_err(), "{bad}");
        }
        let data = json!({"properties": {"a": {"type": "string", "default": {"x-mcp-header": 1}}}});
        assert_eq!(of_schema(&schema(data)).unwrap(), []);
    }

    #[test]
    fn values_travel_plain_or_in_base64() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("=?base64?x"), "=?base64?x");
        let region = [Mirrored {
            path: vec!["region".into()],
            header: "Region".into(),
        }];
        let sent = headers(&region, Some(&json!({"region": "Hello"})));
        assert_eq!(sent, [("mcp-param-region".to_owned(), "Hello".to_owned())]);

        let arguments = json!({"region": "Hello"});
        let told = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert("mcp-param-region", HeaderValue::from_static(value));
            check(&headers, &region, Some(&arguments))
        };
        assert!(told("=?base64?SGVsbG8=?=").is_ok());
        assert!(
            told(" Hello ").is_ok(),
            "spaces around a value are no part of it"
        );
        assert!(told("=?base64?SGVsbG8?=").is_err(), "padding is required");
        assert!(told("=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(told("Bye").unwrap_err().code(), -32020);
        assert!(check(&HeaderMap::new(), &region, Some(&arguments)).is_err());
        assert!(check(&HeaderMap::new(), &region, Some(&json!({}))).is_ok());
    }
}
