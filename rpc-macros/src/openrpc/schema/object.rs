//! Objects: structs of `properties` that keep the members they do not name,
//! maps of `additionalProperties`, `patternProperties` or `propertyNames`,
//! and `allOf` of objects merged into one.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value, json};

use super::{Def, Types, doc_attrs};
use crate::openrpc::names::{self, Scope};
use crate::openrpc::refs;

/// Whether a schema without `type` describes an object.
pub fn is_object_like(object: &Map<String, Value>) -> bool {
    [
        "properties",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "required",
    ]
    .iter()
    .any(|key| object.contains_key(*key))
}

/// Whether an object may have members its `properties` do not name.
fn is_closed(object: &Map<String, Value>) -> bool {
    object.get("additionalProperties") == Some(&Value::Bool(false))
        && !object.contains_key("patternProperties")
}

/// The schema of the values of an object's other members, and where it is:
/// `additionalProperties`, or the one schema of `patternProperties`; any
/// value when several schemas apply. `None` for an object that has no
/// other members, or says nothing of them (a plain `{"type": "object"}`).
pub fn map_values(object: &Map<String, Value>) -> Option<(String, Value)> {
    let mut schemas: Vec<(String, &Value)> = Vec::new();
    if let Some(Value::Object(patterns)) = object.get("patternProperties") {
        for (pattern, schema) in patterns {
            schemas.push((
                format!("patternProperties/{}", refs::escape(pattern)),
                schema,
            ));
        }
    }
    match object.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        Some(schema @ Value::Object(_)) => schemas.push(("additionalProperties".into(), schema)),
        // `true`, or absent: other members hold any value.
        _ if object.contains_key("properties") || !schemas.is_empty() => {
            schemas.push(("additionalProperties".into(), &Value::Bool(true)));
        }
        _ if object.contains_key("propertyNames") => {
            schemas.push(("propertyNames".into(), &Value::Bool(true)));
        }
        _ => {}
    }
    let first = schemas.first()?;
    let all_same = schemas.iter().all(|(_, schema)| *schema == first.1);
    match all_same {
        true => Some((first.0.clone(), first.1.clone())),
        false => Some(("patternProperties".into(), json!({}))),
    }
}

/// `allOf` merged with the schema that holds it: the parts' `properties`
/// and `required` together, open unless every object part is closed.
/// An error names why when the parts are not all objects.
pub fn merge_all_of(
    doc: &Value,
    object: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    merge(doc, object, 0)
}

fn merge(
    doc: &Value,
    object: &Map<String, Value>,
    depth: usize,
) -> Result<Map<String, Value>, String> {
    if depth > 16 {
        return Err("`allOf` nested this deep is not followed".into());
    }
    let Some(Value::Array(parts)) = object.get("allOf") else {
        return Ok(object.clone());
    };
    let mut base = object.clone();
    base.remove("allOf");
    // One part and nothing else: the part itself (an alias, or a
    // description added to a `$ref`).
    if let ([only], false) = (
        parts.as_slice(),
        is_object_like(&base) || base.contains_key("type"),
    ) {
        let mut part = match (only.get("$ref"), only.as_object()) {
            (Some(reference), _) => Map::from_iter([("$ref".to_owned(), reference.clone())]),
            (None, Some(part)) => merge(doc, part, depth + 1)?,
            (None, None) => return Err("`allOf/0` is not a schema object".into()),
        };
        for key in ["title", "description"] {
            if let Some(text) = base.get(key) {
                part.entry(key).or_insert_with(|| text.clone());
            }
        }
        return Ok(part);
    }
    let mut all = vec![base];
    for (i, part) in parts.iter().enumerate() {
        let resolved = refs::follow(doc, part)
            .and_then(Value::as_object)
            .ok_or_else(|| {
                format!("`allOf/{i}` is not a schema object (or a `$ref` to one in this document)")
            })?;
        all.push(merge(doc, resolved, depth + 1)?);
    }
    let is_object = |part: &Map<String, Value>| {
        is_object_like(part) || part.get("type") == Some(&json!("object"))
    };
    let says_more = |part: &Map<String, Value>| {
        ["type", "oneOf", "anyOf", "enum", "const", "items", "not"]
            .iter()
            .any(|key| part.contains_key(*key))
    };
    if all.iter().any(|part| !is_object(part) && says_more(part)) || !all.iter().any(&is_object) {
        return Err("`allOf` of schemas that are not all objects is not supported".into());
    }
    let mut merged = Map::new();
    merged.insert("type".into(), json!("object"));
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for part in &all {
        if let Some(Value::Object(props)) = part.get("properties") {
            for (name, schema) in props {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| schema.clone());
            }
        }
        for name in part
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
        for key in [
            "title",
            "description",
            "additionalProperties",
            "patternProperties",
        ] {
            if let Some(value) = part.get(key) {
                merged.entry(key).or_insert_with(|| value.clone());
            }
        }
    }
    // Closed only if every object part is: each part's `false` speaks of its
    // own `properties`, which the others extend.
    let every_closed = all.iter().filter(|p| is_object(p)).all(is_closed);
    if !every_closed && merged.get("additionalProperties") == Some(&Value::Bool(false)) {
        merged.remove("additionalProperties");
    }
    merged.insert("properties".into(), properties.into());
    merged.insert("required".into(), required.into());
    Ok(merged)
}

impl Types<'_> {
    /// A struct of `properties`, optional unless `required`, with the
    /// members it does not name in a flattened map unless it is closed.
    pub(super) fn structure(
        &mut self,
        name: &str,
        object: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Def {
        let required: HashSet<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let empty = Map::new();
        let properties = match object.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => {
                self.notes.add(
                    &format!("{at}/properties"),
                    "`properties` that is not an object: its members are the struct's other members",
                );
                &empty
            }
        };
        let mut fields = Scope::default();
        let mut body = Vec::new();
        for (json_name, schema) in properties {
            let field = fields.claim(names::snake(json_name, "field"));
            let ident = names::ident(&field);
            let at = format!("{at}/properties/{}", refs::escape(json_name));
            let hint = format!("{name} {json_name}");
            let ty = self.type_at(schema, &hint, &at, depth + 1);
            let docs = schema.as_object().map(doc_attrs);
            let rename = (field != *json_name).then(|| quote!(#[serde(rename = #json_name)]));
            body.push(field_tokens(
                docs,
                rename,
                ident,
                ty,
                required.contains(json_name.as_str()),
            ));
        }
        if let (false, Some((key, values))) = (is_closed(object), map_values(object)) {
            let ident = names::ident(&fields.claim("extra".into()));
            let at = format!("{at}/{key}");
            let values = self
                .type_at(&values, &format!("{name} value"), &at, depth + 1)
                .tokens;
            body.push(quote!(
                /// The members the schema does not name, kept as they came.
                #[serde(flatten)]
                pub #ident: ::std::collections::BTreeMap<::std::string::String, #values>
            ));
        }
        Def::Struct(quote!({ #(#body,)* }))
    }
}

/// One field: required as its type, optional as an `Option` left out when
/// `None`; an optional field whose type holds `null` keeps a present `null`
/// (`Some(None)`) apart from an absent member (`None`).
fn field_tokens(
    docs: Option<TokenStream>,
    rename: Option<TokenStream>,
    ident: proc_macro2::Ident,
    ty: super::Ty,
    required: bool,
) -> TokenStream {
    let inner = ty.tokens;
    match (required, ty.nullable) {
        (true, _) => quote!(#docs #rename pub #ident: #inner),
        (false, false) => quote!(
            #docs #rename
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            pub #ident: ::core::option::Option<#inner>
        ),
        (false, true) => quote!(
            #docs #rename
            #[serde(
                default,
                skip_serializing_if = "::core::option::Option::is_none",
                deserialize_with = "::typed_rpc::__private::present"
            )]
            pub #ident: ::core::option::Option<#inner>
        ),
    }
}
