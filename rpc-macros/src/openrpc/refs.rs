//! `$ref`s inside the document: JSON Pointers after `#` (RFC 6901).

use serde_json::Value;

/// The value `reference` (`#/components/schemas/Pet`) points to in `doc`;
/// `None` for a reference to another document or to nothing.
pub fn resolve<'d>(doc: &'d Value, reference: &str) -> Option<&'d Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(doc);
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .try_fold(doc, |value, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match value {
                Value::Object(map) => map.get(&token),
                Value::Array(list) => list.get(token.parse::<usize>().ok()?),
                _ => None,
            }
        })
}

/// Follows `$ref`s from `value` until it is not one (content descriptors,
/// examples): at most a few hops, so a cycle of references ends.
pub fn follow<'d>(doc: &'d Value, mut value: &'d Value) -> Option<&'d Value> {
    for _ in 0..16 {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => value = resolve(doc, reference)?,
            None => return Some(value),
        }
    }
    None
}

/// `token` escaped for a JSON Pointer.
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_resolve_inside_the_document_only() {
        let doc = json!({"components": {"schemas": {"a/b": {"type": "string"}, "l": [1, 2]}}});
        assert_eq!(
            resolve(&doc, "#/components/schemas/a~1b"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(resolve(&doc, "#/components/schemas/l/1"), Some(&json!(2)));
        assert_eq!(resolve(&doc, "#/components/nothing"), None);
        assert_eq!(resolve(&doc, "other.json#/a"), None);
        assert_eq!(resolve(&doc, "#"), Some(&doc));
    }

    #[test]
    fn a_cycle_of_refs_ends() {
        let doc = json!({"a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}, "c": {"$ref": "#/d"}, "d": 1});
        assert_eq!(follow(&doc, &doc["a"]), None);
        assert_eq!(follow(&doc, &doc["c"]), Some(&json!(1)));
        assert_eq!(escape("a/b~c"), "a~1b~0c");
    }
}
