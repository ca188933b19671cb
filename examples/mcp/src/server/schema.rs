//! The JSON Schemas of tools, in a shape every host accepts: self-contained
//! (definitions inlined, or under the schema's own `$defs` when a type
//! refers to itself), `type: "object"` at the root with `properties`, the
//! 2020-12 dialect stated, and only the `format`s JSON Schema defines
//! (schemars adds `uint32`, `double` and the like, which strict validators
//! such as Ajv refuse).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use typed_rpc::MethodInfo;
use typed_rpc::schema::schemars::generate::SchemaSettings;
use typed_rpc::schema::schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::types::{CallToolResult, GetPromptResult};

/// The dialect every schema states.
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The marker of a type a tool or prompt returns as the protocol's own
/// result (`CallToolResult`, `GetPromptResult`): passed through unchanged.
pub(crate) const PASSTHROUGH: &str = "x-typed-rpc-mcp-passthrough";

/// The schema of a protocol result a handler returns as it is: marked, so
/// that the server passes it through rather than wrap it.
fn passthrough(name: &str) -> Schema {
    let mut object = Map::new();
    object.insert("type".into(), "object".into());
    object.insert("description".into(), format!("An MCP `{name}`.").into());
    object.insert(PASSTHROUGH.into(), name.into());
    Schema::from(object)
}

impl JsonSchema for CallToolResult {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CallToolResult".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "typed_rpc_mcp::types::CallToolResult".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        passthrough("CallToolResult")
    }
}

impl JsonSchema for GetPromptResult {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "GetPromptResult".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        "typed_rpc_mcp::types::GetPromptResult".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        passthrough("GetPromptResult")
    }
}

/// The `format`s JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// What a tool's (or prompt's) result is, from its type's schema.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Output {
    /// The protocol's own result type: sent as it is.
    Passthrough,
    /// A string: one text block.
    Text,
    /// Nothing (`()`): no content.
    Empty,
    /// An object: `structuredContent`, described by this `outputSchema`,
    /// and its JSON as text for clients that read only content.
    Structured(Map<String, Value>),
    /// Any other value with a schema (a number, an array): its JSON as
    /// text, and as `structuredContent` wrapped in an object
    /// (`{"result": value}`, as the Python SDK does), this `outputSchema`
    /// describing the wrapper.
    Wrapped(Map<String, Value>),
    /// A value of a type without a schema: its JSON as text.
    Json,
}

/// A method that cannot be a tool, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// The method.
    pub method: &'static str,
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` cannot be a tool: {}", self.method, self.reason)
    }
}

impl std::error::Error for SchemaError {}

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The `inputSchema` of the method `method`: its named params as the
/// properties of an object, or its `#[params]` struct's schema.
pub(crate) fn input_schema(method: &'static MethodInfo) -> Result<Map<String, Value>, SchemaError> {
    let mut generator = generator();
    let argument_docs = argument_docs(method.documentation());
    let mut root = if method.binds_whole_params() {
        let param = &method.param_list()[0];
        let schema = param.schema_fn().map(|f| f(&mut generator));
        let mut schema = schema.map(Schema::to_value).unwrap_or_else(|| json!({}));
        let defs = generator.take_definitions(true);
        schema = inline(schema, &defs);
        let Value::Object(mut object) = schema else {
            return Err(not_an_object(method));
        };
        match object.get("type") {
            Some(Value::String(ty)) if ty == "object" => {}
            None if object.contains_key("properties") => {
                object.insert("type".into(), "object".into());
            }
            _ => return Err(not_an_object(method)),
        }
        object
    } else {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for param in method.param_list() {
            let mut schema = param
                .schema_fn()
                .map_or_else(|| json!({}), |f| f(&mut generator).to_value());
            if let (Some(docs), Value::Object(object)) =
                (argument_docs.get(param.name()), &mut schema)
            {
                object.insert("description".into(), Value::String(docs.clone()));
            }
            properties.insert(param.name().to_owned(), schema);
            if !param.is_optional() {
                required.push(Value::String(param.name().to_owned()));
            }
        }
        let defs = generator.take_definitions(true);
        let mut object = Map::new();
        object.insert("type".into(), "object".into());
        object.insert(
            "properties".into(),
            inline(Value::Object(properties), &defs),
        );
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        if !method.allows_unknown_params() {
            object.insert("additionalProperties".into(), Value::Bool(false));
        }
        object
    };
    root.entry("properties").or_insert_with(|| json!({}));
    sanitize_object(&mut root);
    root.insert("$schema".into(), DIALECT.into());
    Ok(root)
}

#[cold]
fn not_an_object(method: &'static MethodInfo) -> SchemaError {
    SchemaError {
        method: method.name(),
        reason: "its `#[params]` type is not a JSON object, and tool arguments are one".into(),
    }
}

/// What the method's result is, and its `outputSchema` when structured.
pub(crate) fn output(method: &'static MethodInfo) -> Output {
    let Some(schema_fn) = method.result_schema_fn() else {
        return Output::Json;
    };
    let mut generator = generator();
    let schema = schema_fn(&mut generator).to_value();
    let defs = generator.take_definitions(true);
    let Value::Object(mut object) = inline(schema, &defs) else {
        return Output::Json;
    };
    if object.contains_key(PASSTHROUGH) {
        return Output::Passthrough;
    }
    match object.get("type").and_then(Value::as_str) {
        Some("string") => Output::Text,
        Some("null") => Output::Empty,
        Some("object") => {
            sanitize_object(&mut object);
            object.insert("$schema".into(), DIALECT.into());
            Output::Structured(object)
        }
        _ if is_any_value(&object) => Output::Json,
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert("type".into(), "object".into());
            wrapper.insert("properties".into(), json!({ "result": object }));
            wrapper.insert("required".into(), json!(["result"]));
            sanitize_object(&mut wrapper);
            wrapper.insert("$schema".into(), DIALECT.into());
            Output::Wrapped(wrapper)
        }
    }
}

/// Whether `schema` says nothing of its values (the schema the framework
/// gives a type without `JsonSchema`).
fn is_any_value(schema: &Map<String, Value>) -> bool {
    schema
        .keys()
        .all(|key| key == "description" || key == "title")
}

/// Argument descriptions from a method's docs: the lines of the form
/// ``* `name` - what it is`` (or `-` bullets, or `:` after the name), as
/// rustdoc's `# Arguments` sections write them.
pub(crate) fn argument_docs(docs: &str) -> BTreeMap<String, String> {
    docs.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = line
                .strip_prefix("* `")
                .or_else(|| line.strip_prefix("- `"))?;
            let (name, rest) = rest.split_once('`')?;
            let rest = rest.trim_start();
            let text = rest
                .strip_prefix("- ")
                .or_else(|| rest.strip_prefix(':'))
                .or_else(|| rest.strip_prefix("—"))?;
            Some((name.to_owned(), text.trim().to_owned()))
        })
        .collect()
}

/// `schema` with every `#/$defs/...` reference replaced by its definition,
/// except references a definition makes to itself (directly or not),
/// which stay and bring their definitions along under the root's `$defs`.
fn inline(schema: Value, defs: &Map<String, Value>) -> Value {
    let mut kept = BTreeSet::new();
    let mut root = inline_in(schema, defs, &mut Vec::new(), &mut kept);
    if kept.is_empty() {
        return root;
    }
    let mut root_defs = Map::new();
    let mut pending: Vec<String> = kept.iter().cloned().collect();
    while let Some(name) = pending.pop() {
        if root_defs.contains_key(&name) {
            continue;
        }
        let Some(def) = defs.get(&name).cloned() else {
            continue;
        };
        let mut more = BTreeSet::new();
        let def = inline_in(def, defs, &mut vec![name.clone()], &mut more);
        pending.extend(more.into_iter().filter(|n| !root_defs.contains_key(n)));
        root_defs.insert(name, def);
    }
    if let Value::Object(object) = &mut root {
        object.insert("$defs".into(), Value::Object(root_defs));
    }
    root
}

fn inline_in(
    value: Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    kept: &mut BTreeSet<String>,
) -> Value {
    match value {
        Value::Object(mut object) => {
            let target = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .map(str::to_owned);
            if let Some(name) = target {
                if stack.contains(&name) || !defs.contains_key(&name) {
                    kept.insert(name);
                    return Value::Object(object);
                }
                object.remove("$ref");
                stack.push(name.clone());
                let def = inline_in(defs[&name].clone(), defs, stack, kept);
                stack.pop();
                let mut merged = match def {
                    Value::Object(def) => def,
                    other => return other,
                };
                for (key, value) in object {
                    let value = inline_in(value, defs, stack, kept);
                    merged.insert(key, value);
                }
                return Value::Object(merged);
            }
            Value::Object(
                object
                    .into_iter()
                    .map(|(key, value)| (key, inline_in(value, defs, stack, kept)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| inline_in(item, defs, stack, kept))
                .collect(),
        ),
        other => other,
    }
}

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];

/// Drops the `format`s JSON Schema does not define, and lets an optional
/// property be absent rather than `null` (`["string", "null"]` becomes
/// `"string"`, `anyOf: [X, {"type": "null"}]` becomes `X`): the shape
/// hosts' validators and models handle best. Walks only schema keywords,
/// never data (`enum`, `const`, `default`, `examples`).
fn sanitize_object(object: &mut Map<String, Value>) {
    if let Some(Value::String(format)) = object.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        object.remove("format");
    }
    let required: BTreeSet<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                drop_null(property);
            }
        }
    }
    for keyword in SCHEMA_KEYWORDS {
        if let Some(Value::Object(schema)) = object.get_mut(*keyword) {
            sanitize_object(schema);
        }
    }
    for keyword in SCHEMA_LIST_KEYWORDS {
        if let Some(Value::Array(schemas)) = object.get_mut(*keyword) {
            schemas
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(sanitize_object);
        }
    }
    for keyword in SCHEMA_MAP_KEYWORDS {
        if let Some(Value::Object(schemas)) = object.get_mut(*keyword) {
            schemas
                .values_mut()
                .filter_map(Value::as_object_mut)
                .for_each(sanitize_object);
        }
    }
}

/// `schema` without `null` among the types it allows, when it allows
/// another.
fn drop_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|ty| ty != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
        return;
    }
    let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
    let Some(Value::Array(variants)) = object.get("anyOf") else {
        return;
    };
    if variants.len() != 2 || !variants.iter().any(is_null) {
        return;
    }
    let Some(Value::Object(other)) = variants.iter().find(|v| !is_null(v)).cloned() else {
        return;
    };
    object.remove("anyOf");
    for (key, value) in other {
        object.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_docs_are_read_from_bullets() {
        let docs =
            "Adds.\n\n# Arguments\n\n* `a` - the first\n- `b`: the second\n* not an argument\n";
        let docs = argument_docs(docs);
        assert_eq!(docs["a"], "the first");
        assert_eq!(docs["b"], "the second");
        assert_eq!(docs.len(), 2);
    }

    #[test]
    fn references_are_inlined_unless_recursive() {
        let defs = json!({
            "Point": {"type": "object", "properties": {"x": {"type": "number", "format": "double"}}},
            "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
        });
        let defs = defs.as_object().unwrap();
        let inlined = inline(
            json!({"$ref": "#/$defs/Point", "description": "a point"}),
            defs,
        );
        assert_eq!(
            inlined,
            json!({"type": "object", "properties": {"x": {"type": "number", "format": "double"}}, "description": "a point"})
        );
        let tree = inline(
            json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Tree"}}}),
            defs,
        );
        assert_eq!(
            tree["properties"]["root"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Tree"})
        );
        assert_eq!(tree["$defs"]["Tree"], defs["Tree"]);
    }

    #[test]
    fn sanitizing_drops_foreign_formats_and_nulls_of_optional_properties() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint32", "minimum": 0},
                "when": {"type": ["string", "null"], "format": "date-time"},
                "inner": {"anyOf": [{"type": "object", "properties": {"format": {"type": "string"}}}, {"type": "null"}]},
                "must": {"type": ["number", "null"], "format": "double"}
            },
            "required": ["count", "must"]
        });
        sanitize_object(schema.as_object_mut().unwrap());
        assert_eq!(
            schema["properties"]["count"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            schema["properties"]["when"],
            json!({"type": "string", "format": "date-time"})
        );
        assert_eq!(schema["properties"]["inner"]["type"], "object");
        assert_eq!(
            schema["properties"]["inner"]["properties"]["format"],
            json!({"type": "string"})
        );
        assert_eq!(
            schema["properties"]["must"],
            json!({"type": ["number", "null"]})
        );
    }
}
