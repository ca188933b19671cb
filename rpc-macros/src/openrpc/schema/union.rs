//! `oneOf`, `anyOf` and lists of types: an enum whose `Deserialize` asks
//! the runtime's `choose` which alternative a value is, from a table of
//! what each alternative's schema says, so a value comes back as the
//! alternative it was sent as (a tagged enum's variant, the object with
//! the most members), not as the first that happens to fit.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use super::object::{is_object_like, merge_all_of};
use super::{Def, Types};
use crate::openrpc::names::{self, Scope};
use crate::openrpc::refs;

/// One alternative: where it is (after the union's pointer) and its schema.
pub type Alternatives = Vec<(String, Value)>;

/// The alternatives of `oneOf` or `anyOf`, or of a `type` list of more than
/// one type other than `null`.
pub fn alternatives(object: &Map<String, Value>) -> Option<Alternatives> {
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(list)) = object.get(key)
            && !list.is_empty()
        {
            let list = list.iter().enumerate();
            return Some(
                list.map(|(i, s)| (format!("{key}/{i}"), s.clone()))
                    .collect(),
            );
        }
    }
    let Some(Value::Array(types)) = object.get("type") else {
        return None;
    };
    let types: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
    if types.len() < 2 {
        return None;
    }
    let list = types.into_iter().enumerate().map(|(i, ty)| {
        let mut alternative = object.clone();
        alternative.insert("type".into(), ty.clone());
        (format!("type/{i}"), Value::Object(alternative))
    });
    Some(list.collect())
}

/// `T` of `[T, "null"]`.
pub fn nullable(types: &[Value]) -> Option<&str> {
    match types {
        [Value::String(a), Value::String(b)] if b == "null" => Some(a),
        [Value::String(a), Value::String(b)] if a == "null" => Some(b),
        [Value::String(a)] => Some(a),
        _ => None,
    }
}

/// A schema that is another one or `null`: `oneOf: [T, {"type": "null"}]`,
/// or a `type` list with `null` and two or more other types.
pub struct Nullable {
    pub at: String,
    pub schema: Value,
}

pub fn nullable_alternative(object: &Map<String, Value>) -> Option<Nullable> {
    let is_null = |schema: &Value| schema.get("type") == Some(&Value::from("null"));
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(list)) = object.get(key) {
            return match list.as_slice() {
                [a, b] if is_null(b) && !is_null(a) => Some(Nullable {
                    at: format!("{key}/0"),
                    schema: a.clone(),
                }),
                [a, b] if is_null(a) && !is_null(b) => Some(Nullable {
                    at: format!("{key}/1"),
                    schema: b.clone(),
                }),
                _ => None,
            };
        }
    }
    let types = object.get("type")?.as_array()?;
    let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    if others.len() < 2 || others.len() == types.len() {
        return None;
    }
    let mut schema = object.clone();
    schema.insert("type".into(), others.into());
    Some(Nullable {
        at: String::new(),
        schema: schema.into(),
    })
}

impl Types<'_> {
    /// An enum of the alternatives, with the table that decides between them.
    pub(super) fn union(
        &mut self,
        name: &str,
        alternatives: &Alternatives,
        at: &str,
        depth: usize,
    ) -> Def {
        let ident = names::ident(name);
        let mut variants = Scope::default();
        let mut body = Vec::new();
        let mut arms = Vec::new();
        let mut table = Vec::new();
        for (index, (key, schema)) in alternatives.iter().enumerate() {
            let at = format!("{at}/{key}");
            let variant = names::ident(&variants.claim(variant_name(self.doc, schema, index)));
            let ty = self
                .type_at(schema, &format!("{name} {variant}"), &at, depth + 1)
                .tokens;
            body.push(quote!(#variant(#ty)));
            arms.push(quote!(#index => <#ty as ::serde::Deserialize>::deserialize(value).map(Self::#variant),));
            table.push(shape(self.doc, schema, 0).tokens());
        }
        let derives = quote!(#[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::serde::Serialize)]);
        let count = alternatives.len();
        let private = quote!(::typed_rpc::__private);
        Def::Union(quote! {
            #derives
            #[serde(untagged)]
            pub enum #ident { #(#body,)* }

            impl<'de> ::serde::Deserialize<'de> for #ident {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    static ALTERNATIVES: [#private::Alternative; #count] = [#(#table),*];
                    let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                    #private::choose(&value, &ALTERNATIVES, |index, value| match index {
                        #(#arms)*
                        _ => ::core::result::Result::Err(<::serde_json::Error as ::serde::de::Error>::custom("no such alternative")),
                    })
                    .map_err(<D::Error as ::serde::de::Error>::custom)
                }
            }
        })
    }
}

/// What an alternative's schema says of a value, for the runtime's table.
#[derive(Default)]
struct Shape {
    kinds: u8,
    values: Vec<(String, Vec<String>)>,
    required: Vec<String>,
    known: Vec<String>,
    closed: bool,
    pattern: Option<String>,
}

// The runtime's `kind` bits.
const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const INTEGER: u8 = 4;
const FRACTION: u8 = 8;
const STRING: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;
const ANY: u8 = 127;

fn kinds_of_type(ty: &Value) -> u8 {
    match ty {
        Value::String(ty) => match ty.as_str() {
            "null" => NULL,
            "boolean" => BOOLEAN,
            "integer" => INTEGER,
            "number" => INTEGER | FRACTION,
            "string" => STRING,
            "array" => ARRAY,
            "object" => OBJECT,
            _ => ANY,
        },
        Value::Array(types) => types.iter().fold(0, |kinds, ty| kinds | kinds_of_type(ty)),
        _ => ANY,
    }
}

fn kind_of_value(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(n) if n.is_f64() => FRACTION,
        Value::Number(_) => INTEGER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// The values `const` or `enum` allow, as JSON texts.
fn allowed(object: &Map<String, Value>) -> Option<Vec<String>> {
    match (object.get("const"), object.get("enum")) {
        (Some(value), _) => Some(vec![value.to_string()]),
        (_, Some(Value::Array(values))) => Some(values.iter().map(Value::to_string).collect()),
        _ => None,
    }
}

/// `schema` with its `$ref`s followed and its `allOf` merged.
fn resolved(doc: &Value, schema: &Value) -> Map<String, Value> {
    let object = refs::follow(doc, schema)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    merge_all_of(doc, &object).unwrap_or(object)
}

fn shape(doc: &Value, schema: &Value, depth: usize) -> Shape {
    let object = resolved(doc, schema);
    let kinds = if let Some(ty) = object.get("type") {
        kinds_of_type(ty)
    } else if let Some(Value::Array(values)) = object.get("enum") {
        values.iter().fold(0, |kinds, v| kinds | kind_of_value(v))
    } else if let Some(value) = object.get("const") {
        kind_of_value(value)
    } else if let (Some(list), true) = (alternatives(&object), depth < 8) {
        list.iter()
            .fold(0, |kinds, (_, s)| kinds | shape(doc, s, depth + 1).kinds)
    } else if is_object_like(&object) {
        OBJECT
    } else if object.contains_key("items") {
        ARRAY
    } else {
        ANY
    };
    let mut values: Vec<(String, Vec<String>)> = allowed(&object)
        .map(|v| (String::new(), v))
        .into_iter()
        .collect();
    let properties = object.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        let property = refs::follow(doc, property).and_then(Value::as_object);
        if let Some(allowed) = property.and_then(allowed) {
            values.push((name.clone(), allowed));
        }
    }
    let strings = |key: &str| -> Vec<String> {
        object
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    Shape {
        kinds: if kinds == 0 { ANY } else { kinds },
        values,
        required: strings("required"),
        known: properties
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default(),
        closed: object.get("additionalProperties") == Some(&Value::Bool(false))
            && !object.contains_key("patternProperties"),
        pattern: object
            .get("pattern")
            .and_then(Value::as_str)
            .map(str::to_owned),
    }
}

impl Shape {
    fn tokens(&self) -> TokenStream {
        let private = quote!(::typed_rpc::__private);
        let kinds = self.kinds;
        let values = self
            .values
            .iter()
            .map(|(member, allowed)| quote!((#member, &[#(#allowed),*])));
        let required = &self.required;
        let known = &self.known;
        let closed = self.closed;
        let pattern = match &self.pattern {
            Some(pattern) => quote!(::core::option::Option::Some(#private::Pattern::new(#pattern))),
            None => quote!(::core::option::Option::None),
        };
        quote!(#private::Alternative {
            kinds: #kinds,
            values: &[#(#values),*],
            required: &[#(#required),*],
            known: &[#(#known),*],
            closed: #closed,
            pattern: #pattern,
        })
    }
}

/// A variant's name: the referenced schema's name, the schema's title, the
/// value of its `const` tag, its one allowed string, or its type.
fn variant_name(doc: &Value, schema: &Value, index: usize) -> String {
    let fallback = format!("Variant{index}");
    let from_ref = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next());
    let object = resolved(doc, schema);
    let tag = object
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| {
            p.values()
                .find_map(|p| p.get("const").and_then(Value::as_str))
        });
    let single = match (object.get("const"), object.get("enum")) {
        (Some(Value::String(value)), _) => Some(value.as_str()),
        (_, Some(Value::Array(values))) if values.len() == 1 => values[0].as_str(),
        _ => None,
    };
    let ty = object.get("type").and_then(Value::as_str);
    // Externally tagged: an object of one member, the variant's name.
    let only_member = match object.get("properties").and_then(Value::as_object) {
        Some(properties)
            if properties.len() == 1
                && object.get("additionalProperties") == Some(&Value::Bool(false)) =>
        {
            properties.keys().next().map(String::as_str)
        }
        _ => None,
    };
    let name = from_ref
        .or_else(|| object.get("title").and_then(Value::as_str))
        .or(tag)
        .or(only_member)
        .or(single)
        .or(ty);
    names::camel(name.unwrap_or(&fallback), &fallback)
}
