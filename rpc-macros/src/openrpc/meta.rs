//! What the OpenRPC 1.3 meta-schema asks of a document, checked before
//! anything is generated: each object's required members and their types,
//! the members it may hold (any `x-` extension besides), `paramStructure`'s
//! values, and one name per method. Every problem names its JSON Pointer.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::refs;

/// The members an object of the meta-schema may hold, the required ones first.
struct Object {
    what: &'static str,
    required: &'static [&'static str],
    optional: &'static [&'static str],
    /// The members it takes beyond those.
    extra: Extra,
}

/// What the meta-schema says of an object's other members.
#[derive(PartialEq)]
enum Extra {
    /// None (the error object).
    Nothing,
    /// `x-` extensions only (most objects).
    Extensions,
    /// Any (the example pairing).
    Anything,
}

const ROOT: Object = Object {
    what: "an OpenRPC document",
    required: &["openrpc", "info", "methods"],
    optional: &["servers", "components", "externalDocs", "$schema"],
    extra: Extra::Extensions,
};
const INFO: Object = Object {
    what: "`info`",
    required: &["title", "version"],
    optional: &["description", "termsOfService", "contact", "license"],
    extra: Extra::Extensions,
};
const METHOD: Object = Object {
    what: "a method",
    required: &["name", "params"],
    optional: &[
        "description",
        "summary",
        "servers",
        "tags",
        "paramStructure",
        "result",
        "errors",
        "links",
        "examples",
        "deprecated",
        "externalDocs",
    ],
    extra: Extra::Extensions,
};
const DESCRIPTOR: Object = Object {
    what: "a content descriptor",
    required: &["name", "schema"],
    optional: &["description", "summary", "required", "deprecated"],
    extra: Extra::Extensions,
};
const ERROR: Object = Object {
    what: "an error",
    required: &["code", "message"],
    optional: &["data"],
    extra: Extra::Nothing,
};
const PAIRING: Object = Object {
    what: "an example pairing",
    required: &["name", "params"],
    optional: &["description", "summary", "result"],
    extra: Extra::Anything,
};

/// Every way `doc` breaks the meta-schema; empty when it does not.
pub fn check(doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(root) = object(doc, "#", &ROOT, &mut problems) else {
        return problems;
    };
    string(root, "#", "openrpc", &mut problems);
    if let Some(info) = root.get("info")
        && let Some(info) = object(info, "#/info", &INFO, &mut problems)
    {
        string(info, "#/info", "title", &mut problems);
        string(info, "#/info", "version", &mut problems);
    }
    let Some(methods) = root.get("methods") else {
        return problems;
    };
    let Some(methods) = methods.as_array() else {
        problems.push("`#/methods` is not an array".into());
        return problems;
    };
    let mut names: HashMap<&str, String> = HashMap::new();
    for (i, method) in methods.iter().enumerate() {
        let at = format!("#/methods/{i}");
        let Some(method) = referenced(doc, method, &at, &mut problems) else {
            continue;
        };
        let Some(fields) = object(method, &at, &METHOD, &mut problems) else {
            continue;
        };
        if let Some(name) = string(fields, &at, "name", &mut problems)
            && let Some(first) = names.insert(name, format!("{at}/name"))
        {
            problems.push(format!(
                "`{at}/name`: a second method named `{name}`; the first is at `{first}`"
            ));
        }
        check_method(doc, fields, &at, &mut problems);
    }
    problems
}

fn check_method(doc: &Value, method: &Map<String, Value>, at: &str, problems: &mut Vec<String>) {
    if let Some(structure) = method.get("paramStructure")
        && !matches!(
            structure.as_str(),
            Some("by-name" | "by-position" | "either")
        )
    {
        problems.push(format!(
                "`{at}/paramStructure` is {structure}; expected \"by-name\", \"by-position\" or \"either\""
            ));
    }
    for (key, shape) in [
        ("params", &DESCRIPTOR),
        ("errors", &ERROR),
        ("examples", &PAIRING),
    ] {
        let Some(list) = method.get(key) else {
            continue;
        };
        let Some(list) = list.as_array() else {
            problems.push(format!("`{at}/{key}` is not an array"));
            continue;
        };
        for (i, item) in list.iter().enumerate() {
            let at = format!("{at}/{key}/{i}");
            if let Some(item) = referenced(doc, item, &at, problems)
                && let Some(fields) = object(item, &at, shape, problems)
            {
                members_typed(fields, &at, problems);
            }
        }
    }
    if let Some(result) = method.get("result") {
        let at = format!("{at}/result");
        if let Some(result) = referenced(doc, result, &at, problems)
            && let Some(fields) = object(result, &at, &DESCRIPTOR, problems)
        {
            members_typed(fields, &at, problems);
        }
    }
}

/// The types of the members of descriptors, errors and pairings.
fn members_typed(fields: &Map<String, Value>, at: &str, problems: &mut Vec<String>) {
    let expect = |key: &str, ok: bool, what: &str, problems: &mut Vec<String>| {
        if fields.contains_key(key) && !ok {
            problems.push(format!("`{at}/{key}` is not {what}"));
        }
    };
    let get = |key: &str| fields.get(key).unwrap_or(&Value::Null);
    expect("name", get("name").is_string(), "a string", problems);
    expect(
        "required",
        get("required").is_boolean(),
        "a boolean",
        problems,
    );
    expect("code", get("code").is_i64(), "an integer", problems);
    expect("message", get("message").is_string(), "a string", problems);
    expect("params", get("params").is_array(), "an array", problems);
    expect(
        "schema",
        get("schema").is_object() || get("schema").is_boolean(),
        "a JSON Schema (an object or a boolean)",
        problems,
    );
}

/// `value`, its `$ref` followed; a `$ref` to nothing is a problem naming it.
fn referenced<'d>(
    doc: &'d Value,
    value: &'d Value,
    at: &str,
    problems: &mut Vec<String>,
) -> Option<&'d Value> {
    let Some(reference) = value.get("$ref") else {
        return Some(value);
    };
    match refs::follow(doc, value) {
        Some(target) => Some(target),
        None => {
            problems.push(format!(
                "`{at}`: `$ref` {reference} points at nothing in this document"
            ));
            None
        }
    }
}

/// `value` as an object of `shape`, every missing or unknown member a problem.
fn object<'v>(
    value: &'v Value,
    at: &str,
    shape: &Object,
    problems: &mut Vec<String>,
) -> Option<&'v Map<String, Value>> {
    let Some(fields) = value.as_object() else {
        problems.push(format!("`{at}` is not {}: not a JSON object", shape.what));
        return None;
    };
    for key in shape.required {
        if !fields.contains_key(*key) {
            problems.push(format!("`{at}`: {} needs `{key}`", shape.what));
        }
    }
    for key in fields.keys() {
        let known =
            shape.required.contains(&key.as_str()) || shape.optional.contains(&key.as_str());
        let allowed = match shape.extra {
            Extra::Nothing => false,
            Extra::Extensions => key.starts_with("x-"),
            Extra::Anything => true,
        };
        if !known && !allowed {
            let hint = match shape.extra {
                Extra::Extensions => " (an extension's name starts with `x-`)",
                _ => "",
            };
            problems.push(format!(
                "`{at}/{}`: {} has no member `{key}`{hint}",
                refs::escape(key),
                shape.what
            ));
        }
    }
    Some(fields)
}

fn string<'v>(
    fields: &'v Map<String, Value>,
    at: &str,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<&'v str> {
    let value = fields.get(key)?;
    let text = value.as_str();
    if text.is_none() {
        problems.push(format!("`{at}/{key}` is not a string"));
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_valid_document_has_no_problems() {
        let doc = json!({"openrpc": "1.3.2", "info": {"title": "t", "version": "1", "x-logo": {}},
            "methods": [{"name": "a", "params": [{"$ref": "#/components/contentDescriptors/P"}],
                         "result": {"name": "r", "schema": true}, "x-stream": {}}],
            "components": {"contentDescriptors": {"P": {"name": "p", "schema": {}}}}});
        assert_eq!(check(&doc), Vec::<String>::new());
    }

    #[test]
    fn every_problem_is_named_with_its_pointer() {
        let doc = json!({"openrpc": 1, "info": {"title": "t"}, "method": [],
        "methods": [
            {"name": "a", "params": [{"name": "p"}], "paramStructure": "sideways"},
            {"name": "a", "params": [{"$ref": "#/components/contentDescriptors/Gone"}],
             "errors": [{"code": 1.5, "message": "m", "x-data": {}}], "retult": {}},
            {"params": []}
        ]});
        assert_eq!(
            check(&doc),
            [
                "`#/method`: an OpenRPC document has no member `method` (an extension's name starts with `x-`)",
                "`#/openrpc` is not a string",
                "`#/info`: `info` needs `version`",
                "`#/methods/0/paramStructure` is \"sideways\"; expected \"by-name\", \"by-position\" or \"either\"",
                "`#/methods/0/params/0`: a content descriptor needs `schema`",
                "`#/methods/1/retult`: a method has no member `retult` (an extension's name starts with `x-`)",
                "`#/methods/1/name`: a second method named `a`; the first is at `#/methods/0/name`",
                "`#/methods/1/params/0`: `$ref` \"#/components/contentDescriptors/Gone\" points at nothing in this document",
                "`#/methods/1/errors/0/x-data`: an error has no member `x-data`",
                "`#/methods/1/errors/0/code` is not an integer",
                "`#/methods/2`: a method needs `name`",
            ]
        );
    }
}
