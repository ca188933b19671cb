//! JSON Schema to Rust types: each schema a document uses becomes a Rust
//! type, and the schemas that need one get a definition (a struct, an enum,
//! an alias).
//!
//! | schema | Rust |
//! |---|---|
//! | `{"$ref": "#/components/schemas/Pet"}` | `Pet`, defined once (`Box<Pet>` inside its own definition) |
//! | `string`, `integer`, `number`, `boolean`, `null` | `String`, `i64`, `f64`, `bool`, `()` |
//! | `array` | `Vec<items>` |
//! | `object` with `properties` | a struct, JSON names kept with `rename`, the optional ones `Option` |
//! | `object` with only `additionalProperties` | `BTreeMap<String, T>` |
//! | `enum` of strings | an enum of unit variants |
//! | `oneOf`, `anyOf`, `type: [..]` | an untagged enum, one variant per alternative (`Option<T>` for `[T, "null"]`) |
//! | `{}`, `true`, no `type` | `serde_json::Value` |
//! | anything else (`allOf`, `not`, `enum` of non-strings, `$ref` outside the document, ...) | `serde_json::Value`, with a note |
//!
//! A note is a compile-time warning the expansion emits (see [`Notes`]);
//! nothing here fails or panics on a schema it does not know.

use std::collections::{BTreeMap, HashSet};

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::{Map, Value};

use super::names::{self, Scope};
use super::refs;

/// Schemas a Rust type was not found for, each said once at compile time.
#[derive(Default)]
pub struct Notes(pub Vec<String>);

impl Notes {
    pub fn add(&mut self, at: &str, what: &str) {
        self.0.push(format!(
            "openrpc: `{at}`: {what}; it is `serde_json::Value`"
        ));
    }
}

/// The types of one document, defined as they are first used.
pub struct Types<'d> {
    doc: &'d Value,
    /// The type of each `$ref` target already named, by its pointer.
    named: BTreeMap<String, Ident>,
    /// Pointers whose definition is being built: a `$ref` back to one is a
    /// recursive type, boxed.
    building: HashSet<String>,
    scope: Scope,
    pub defs: Vec<TokenStream>,
    pub notes: Notes,
}

/// How deep inline schemas may nest: a bound for documents built to recurse
/// without a `$ref` (which the expansion would otherwise follow forever).
const MAX_DEPTH: usize = 64;

impl<'d> Types<'d> {
    pub fn new(doc: &'d Value) -> Self {
        Types {
            doc,
            named: BTreeMap::new(),
            building: HashSet::new(),
            scope: Scope::default(),
            defs: Vec::new(),
            notes: Notes::default(),
        }
    }

    /// The Rust type of `schema`, found at pointer `at`; a type it needs is
    /// named after `hint`.
    pub fn rust_type(&mut self, schema: &Value, hint: &str, at: &str) -> TokenStream {
        self.type_at(schema, hint, at, 0)
    }

    fn type_at(&mut self, schema: &Value, hint: &str, at: &str, depth: usize) -> TokenStream {
        let value = quote!(::serde_json::Value);
        if depth > MAX_DEPTH {
            self.notes
                .add(at, "schemas nested this deep are not followed");
            return value;
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(true) => return value,
            _ => {
                self.notes.add(at, "a schema that is not an object");
                return value;
            }
        };
        if let Some(target) = object.get("$ref") {
            return self.reference(target, at);
        }
        if needs_definition(object) {
            let name = self.scope.claim(names::camel(hint, "Type"));
            let ident = names::ident(&name);
            self.define(&ident, object, at, depth);
            return quote!(#ident);
        }
        self.inline(object, hint, at, depth)
    }

    /// The type of a `$ref`: a named type for a target in this document.
    fn reference(&mut self, target: &Value, at: &str) -> TokenStream {
        let Some(pointer) = target.as_str() else {
            self.notes.add(at, "a `$ref` that is not a string");
            return quote!(::serde_json::Value);
        };
        if let Some(ident) = self.named.get(pointer) {
            let ident = ident.clone();
            return match self.building.contains(pointer) {
                true => quote!(::std::boxed::Box<#ident>),
                false => quote!(#ident),
            };
        }
        let Some(schema) = refs::resolve(self.doc, pointer) else {
            self.notes.add(
                at,
                &format!("`$ref` `{pointer}` is not a place in this document"),
            );
            return quote!(::serde_json::Value);
        };
        let last = pointer.rsplit('/').next().unwrap_or_default();
        let name = self.scope.claim(names::camel(last, "Type"));
        let ident = names::ident(&name);
        self.named.insert(pointer.to_owned(), ident.clone());
        self.building.insert(pointer.to_owned());
        match schema {
            Value::Object(object) => self.define(&ident, object, pointer, 0),
            other => {
                let ty = self.type_at(other, &name, pointer, 0);
                self.defs.push(quote!(pub type #ident = #ty;));
            }
        }
        self.building.remove(pointer);
        quote!(#ident)
    }

    /// Defines `ident` as the type of `object`.
    fn define(&mut self, ident: &Ident, object: &Map<String, Value>, at: &str, depth: usize) {
        let docs = doc_attrs(object);
        let name = ident.to_string();
        let def = if let Some(values) = string_enum(object) {
            enum_of_strings(&values)
        } else if let Some((key, alternatives)) = alternatives(object) {
            self.untagged(&name, key, &alternatives, at, depth)
        } else if object.contains_key("properties") {
            self.structure(&name, object, at, depth)
        } else {
            let ty = self.inline(object, &name, at, depth);
            Def::Alias(quote!(pub type #ident = #ty;))
        };
        let def = match def {
            Def::Struct(body) => quote!(
                #docs
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::serde::Serialize, ::serde::Deserialize)]
                pub struct #ident #body
            ),
            Def::Enum { attrs, body } => quote!(
                #docs
                #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::serde::Serialize, ::serde::Deserialize)]
                #attrs
                pub enum #ident #body
            ),
            Def::Alias(tokens) => quote!(#docs #tokens),
        };
        self.defs.push(def);
    }

    /// A schema that needs no definition of its own.
    fn inline(
        &mut self,
        object: &Map<String, Value>,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> TokenStream {
        for unsupported in ["allOf", "not", "if", "const", "enum", "patternProperties"] {
            if object.contains_key(unsupported) {
                self.notes
                    .add(at, &format!("`{unsupported}` is not supported"));
                return quote!(::serde_json::Value);
            }
        }
        match object.get("type") {
            None => quote!(::serde_json::Value),
            Some(Value::String(ty)) => self.of_type(ty, object, hint, at, depth),
            Some(Value::Array(types)) => match nullable(types) {
                Some(ty) => {
                    let inner = self.of_type(ty, object, hint, at, depth);
                    quote!(::core::option::Option<#inner>)
                }
                None => {
                    self.notes
                        .add(at, "a list of types other than `[T, \"null\"]`");
                    quote!(::serde_json::Value)
                }
            },
            Some(_) => {
                self.notes.add(at, "a `type` that is not a string");
                quote!(::serde_json::Value)
            }
        }
    }

    fn of_type(
        &mut self,
        ty: &str,
        object: &Map<String, Value>,
        hint: &str,
        at: &str,
        depth: usize,
    ) -> TokenStream {
        match ty {
            "string" => quote!(::std::string::String),
            "integer" => quote!(i64),
            "number" => quote!(f64),
            "boolean" => quote!(bool),
            "null" => quote!(()),
            "array" => {
                let items = match object.get("items") {
                    Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                        let at = format!("{at}/items");
                        self.type_at(items, &format!("{hint} item"), &at, depth + 1)
                    }
                    None => quote!(::serde_json::Value),
                    Some(_) => {
                        self.notes.add(at, "tuple `items` are not supported");
                        quote!(::serde_json::Value)
                    }
                };
                quote!(::std::vec::Vec<#items>)
            }
            "object" => match object.get("additionalProperties") {
                Some(values @ Value::Object(_)) => {
                    let at = format!("{at}/additionalProperties");
                    let values = self.type_at(values, &format!("{hint} value"), &at, depth + 1);
                    quote!(::std::collections::BTreeMap<::std::string::String, #values>)
                }
                _ => quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>),
            },
            other => {
                self.notes.add(at, &format!("unknown type `{other}`"));
                quote!(::serde_json::Value)
            }
        }
    }

    /// A struct of `properties`, optional unless `required`.
    fn structure(
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
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            self.notes.add(
                at,
                "`properties` that is not an object: a struct without fields",
            );
            return Def::Struct(quote!({}));
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
            body.push(if required.contains(json_name.as_str()) {
                quote!(#docs #rename pub #ident: #ty)
            } else {
                quote!(
                    #docs #rename
                    #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                    pub #ident: ::core::option::Option<#ty>
                )
            });
        }
        Def::Struct(quote!({ #(#body,)* }))
    }

    /// An untagged enum of the alternatives of `oneOf` or `anyOf`.
    fn untagged(
        &mut self,
        name: &str,
        key: &str,
        alternatives: &[Value],
        at: &str,
        depth: usize,
    ) -> Def {
        let mut variants = Scope::default();
        let body: Vec<TokenStream> = alternatives
            .iter()
            .enumerate()
            .map(|(i, schema)| {
                let at = format!("{at}/{key}/{i}");
                let variant = variants.claim(variant_name(schema, i));
                let ident = names::ident(&variant);
                let ty = self.type_at(schema, &format!("{name} {variant}"), &at, depth + 1);
                quote!(#ident(#ty))
            })
            .collect();
        Def::Enum {
            attrs: quote!(#[serde(untagged)]),
            body: quote!({ #(#body,)* }),
        }
    }
}

/// The definition of a named type.
enum Def {
    Struct(TokenStream),
    Enum {
        attrs: TokenStream,
        body: TokenStream,
    },
    Alias(TokenStream),
}

/// Whether an inline schema is a struct or an enum, which Rust must name.
fn needs_definition(object: &Map<String, Value>) -> bool {
    string_enum(object).is_some()
        || alternatives(object).is_some()
        || (object.contains_key("properties") && !object.contains_key("allOf"))
}

/// The values of an `enum` whose values are all strings.
fn string_enum(object: &Map<String, Value>) -> Option<Vec<String>> {
    let values = object.get("enum")?.as_array()?;
    let strings: Option<Vec<String>> = values
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect();
    strings.filter(|s| !s.is_empty())
}

/// `oneOf` or `anyOf` and their alternatives.
fn alternatives(object: &Map<String, Value>) -> Option<(&'static str, Vec<Value>)> {
    ["oneOf", "anyOf"].into_iter().find_map(|key| {
        let list = object.get(key)?.as_array()?;
        (!list.is_empty()).then(|| (key, list.clone()))
    })
}

/// `T` of `[T, "null"]`.
fn nullable(types: &[Value]) -> Option<&str> {
    match types {
        [Value::String(a), Value::String(b)] if b == "null" => Some(a),
        [Value::String(a), Value::String(b)] if a == "null" => Some(b),
        _ => None,
    }
}

fn enum_of_strings(values: &[String]) -> Def {
    let mut variants = Scope::default();
    let body = values.iter().map(|value| {
        let ident = names::ident(&variants.claim(names::camel(value, "Empty")));
        quote!(#[serde(rename = #value)] #ident)
    });
    Def::Enum {
        attrs: TokenStream::new(),
        body: quote!({ #(#body,)* }),
    }
}

/// A variant's name: the referenced schema's name, the schema's title, or
/// its type.
fn variant_name(schema: &Value, index: usize) -> String {
    let from_ref = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next());
    let name = from_ref
        .or_else(|| schema.get("title").and_then(Value::as_str))
        .or_else(|| schema.get("type").and_then(Value::as_str));
    let fallback = format!("Variant{index}");
    names::camel(name.unwrap_or(&fallback), &fallback)
}

/// `#[doc]` lines from a schema's `title` and `description`.
pub fn doc_attrs(object: &Map<String, Value>) -> TokenStream {
    let lines = ["title", "summary", "description"]
        .into_iter()
        .filter_map(|key| object.get(key).and_then(Value::as_str))
        .map(|text| quote!(#[doc = #text]));
    quote!(#(#lines)*)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The type of `schema` in a document whose schemas are `components`, and
    /// every definition and note it needed.
    fn map(components: Value, schema: Value) -> (String, Vec<String>, Vec<String>) {
        let doc = json!({"components": {"schemas": components}});
        let mut types = Types::new(&doc);
        let ty = types.rust_type(&schema, "Thing", "#/x").to_string();
        let defs = types.defs.iter().map(ToString::to_string).collect();
        (ty, defs, types.notes.0)
    }

    fn ty(schema: Value) -> String {
        let (ty, _, notes) = map(json!({}), schema);
        assert!(notes.is_empty(), "{notes:?}");
        ty
    }

    #[test]
    fn primitives_and_arrays_map_to_std_types() {
        assert_eq!(ty(json!({"type": "string"})), ":: std :: string :: String");
        assert_eq!(ty(json!({"type": "integer"})), "i64");
        assert_eq!(ty(json!({"type": "number"})), "f64");
        assert_eq!(ty(json!({"type": "boolean"})), "bool");
        assert_eq!(
            ty(json!({"type": "array", "items": {"type": "integer"}})),
            ":: std :: vec :: Vec < i64 >"
        );
        assert_eq!(
            ty(json!({"type": ["string", "null"]})),
            ":: core :: option :: Option < :: std :: string :: String >"
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": {"type": "boolean"}})),
            ":: std :: collections :: BTreeMap < :: std :: string :: String , bool >"
        );
        assert_eq!(ty(json!({})), ":: serde_json :: Value");
        assert_eq!(ty(json!(true)), ":: serde_json :: Value");
    }

    #[test]
    fn objects_become_structs_with_json_names_and_optional_fields() {
        let (ty, defs, _) = map(
            json!({}),
            json!({"type": "object", "required": ["petId"],
                   "properties": {"petId": {"type": "integer"}, "type": {"type": "string"}}}),
        );
        assert_eq!(ty, "Thing");
        let def = &defs[0];
        assert!(def.contains("pub struct Thing"), "{def}");
        assert!(
            def.contains("# [serde (rename = \"petId\")] pub pet_id : i64"),
            "{def}"
        );
        assert!(
            def.contains("pub r#type : :: core :: option :: Option < :: std :: string :: String >"),
            "{def}"
        );
    }

    #[test]
    fn refs_name_one_shared_type_and_recursion_is_boxed() {
        let components = json!({
            "Node": {"type": "object", "properties": {
                "next": {"$ref": "#/components/schemas/Node"},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            }}
        });
        let (ty, defs, _) = map(
            components,
            json!({"type": "array", "items": {"$ref": "#/components/schemas/Node"}}),
        );
        assert_eq!(ty, ":: std :: vec :: Vec < Node >");
        assert_eq!(defs.len(), 1, "{defs:?}");
        assert!(
            defs[0].contains("Option < :: std :: boxed :: Box < Node > >"),
            "{}",
            defs[0]
        );
    }

    #[test]
    fn one_of_and_string_enums_become_enums() {
        let (_, defs, _) = map(
            json!({"Pet": {"type": "object", "properties": {}}}),
            json!({"oneOf": [{"$ref": "#/components/schemas/Pet"}, {"type": "string"}]}),
        );
        let def = defs.last().unwrap();
        assert!(def.contains("# [serde (untagged)] pub enum Thing"), "{def}");
        assert!(
            def.contains("Pet (Pet) , String (:: std :: string :: String)"),
            "{def}"
        );

        let (_, defs, _) = map(json!({}), json!({"enum": ["open", "merged", "not-sure"]}));
        assert!(
            defs[0].contains("# [serde (rename = \"not-sure\")] NotSure"),
            "{}",
            defs[0]
        );
    }

    #[test]
    fn unsupported_schemas_are_values_with_a_note() {
        let (ty, _, notes) = map(json!({}), json!({"allOf": [{"type": "string"}]}));
        assert_eq!(ty, ":: serde_json :: Value");
        assert_eq!(
            notes,
            ["openrpc: `#/x`: `allOf` is not supported; it is `serde_json::Value`"]
        );
        let (ty, _, notes) = map(json!({}), json!({"$ref": "other.json#/Pet"}));
        assert_eq!(ty, ":: serde_json :: Value");
        assert_eq!(notes.len(), 1);
        let (ty, _, notes) = map(json!({}), json!({"type": ["string", "integer", "null"]}));
        assert_eq!(ty, ":: serde_json :: Value");
        assert_eq!(notes.len(), 1);
        let (_, _, notes) = map(json!({}), json!(42));
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn a_schema_nested_without_end_is_cut_off() {
        let mut schema = json!({"type": "string"});
        for _ in 0..200 {
            schema = json!({"type": "array", "items": schema});
        }
        let (_, _, notes) = map(json!({}), schema);
        assert_eq!(notes.len(), 1);
    }
}
