//! JSON Schema to Rust types that keep every value their schema admits:
//! each schema a document uses becomes a Rust type, and the schemas that
//! need one get a definition (a struct, an enum, an alias).
//!
//! | schema | Rust |
//! |---|---|
//! | `{"$ref": "#/components/schemas/Pet"}` | `Pet`, defined once (`Box<Pet>` inside its own definition; a newtype when it is an array or map of itself) |
//! | `string`, `boolean`, `null` | `String`, `bool`, `()` |
//! | `integer` | the width its `format` or `minimum`/`maximum` say (`uint64` is `u64`), else `i64` |
//! | `number` | `f64` |
//! | `array` | `Vec<items>`, a tuple for an array of `items` |
//! | `object` with `properties` (`allOf` of objects merged) | a struct, JSON names kept; members it does not name kept in a flattened map unless `additionalProperties: false` |
//! | `object` of `additionalProperties`, `patternProperties` or `propertyNames` only | `BTreeMap<String, T>` |
//! | `enum` or `const` of strings | an enum of unit variants |
//! | `oneOf`, `anyOf`, `type: [..]` | an enum whose variant is decided by the schemas (`Option<T>` for `[T, "null"]`) |
//! | `{}`, `true`, no `type` | `serde_json::Value` |
//! | anything else (`not`, `if`, a `$ref` to another file, ...) | `serde_json::Value`, with a note |
//!
//! A note is a compile-time warning the expansion emits (see [`Notes`]); a
//! `$ref` to nothing in the document is an error the expansion reports.

mod object;
mod scalar;
mod union;

use std::borrow::Cow;
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
    /// A note that the schema at `at` became `serde_json::Value`, and why.
    pub fn add(&mut self, at: &str, what: &str) {
        self.0.push(format!(
            "openrpc: `{at}`: {what}; it is `serde_json::Value`"
        ));
    }
}

/// A Rust type, and whether it holds `null` (so that an optional member of
/// this type needs to tell a present `null` from an absent member).
#[derive(Clone)]
pub struct Ty {
    pub tokens: TokenStream,
    pub nullable: bool,
}

impl Ty {
    fn new(tokens: TokenStream) -> Self {
        Ty {
            tokens,
            nullable: false,
        }
    }

    fn value() -> Self {
        Ty {
            tokens: quote!(::serde_json::Value),
            nullable: true,
        }
    }

    fn option(self) -> Self {
        let inner = self.tokens;
        Ty {
            tokens: quote!(::core::option::Option<#inner>),
            nullable: true,
        }
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
    /// Pointers referred to while being built.
    recursive: HashSet<String>,
    scope: Scope,
    pub defs: Vec<TokenStream>,
    pub notes: Notes,
    /// `$ref`s to nothing in the document: errors.
    pub errors: Vec<String>,
}

/// How deep inline schemas may nest: a bound for documents built to recurse
/// without a `$ref` (which the expansion would otherwise follow forever).
const MAX_DEPTH: usize = 64;

/// The derives of every generated struct and enum.
fn derives() -> TokenStream {
    quote!(#[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::serde::Serialize, ::serde::Deserialize)])
}

impl<'d> Types<'d> {
    pub fn new(doc: &'d Value) -> Self {
        Types {
            doc,
            named: BTreeMap::new(),
            building: HashSet::new(),
            recursive: HashSet::new(),
            scope: Scope::default(),
            defs: Vec::new(),
            notes: Notes::default(),
            errors: Vec::new(),
        }
    }

    /// A type name of its own, unique among the document's types.
    pub fn claim(&mut self, name: String) -> String {
        self.scope.claim(name)
    }

    /// The Rust type of `schema`, found at pointer `at`; a type it needs is
    /// named after `hint`.
    pub fn rust_type(&mut self, schema: &Value, hint: &str, at: &str) -> TokenStream {
        self.type_at(schema, hint, at, 0).tokens
    }

    fn type_at(&mut self, schema: &Value, hint: &str, at: &str, depth: usize) -> Ty {
        if depth > MAX_DEPTH {
            self.notes
                .add(at, "schemas nested this deep are not followed");
            return Ty::value();
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(true) => return Ty::value(),
            _ => {
                self.notes.add(at, "a schema that is not an object");
                return Ty::value();
            }
        };
        if let Some(target) = object.get("$ref") {
            return self.reference(target, at);
        }
        let Some(object) = self.merged(object, at) else {
            return Ty::value();
        };
        let object = &*object;
        if let Some(nullable) = union::nullable_alternative(object) {
            let at = format!("{at}/{}", nullable.at);
            return self
                .type_at(&nullable.schema, hint, &at, depth + 1)
                .option();
        }
        if needs_definition(object) {
            let name = self.scope.claim(names::camel(hint, "Type"));
            let ident = names::ident(&name);
            let def = self.definition(&ident, object, at, depth);
            return self.emit(&ident, object, def, false);
        }
        self.inline(object, hint, at, depth)
    }

    /// `object` with its `allOf` merged; `None`, noted, when it cannot be.
    fn merged<'o>(
        &mut self,
        object: &'o Map<String, Value>,
        at: &str,
    ) -> Option<Cow<'o, Map<String, Value>>> {
        if !object.contains_key("allOf") {
            return Some(Cow::Borrowed(object));
        }
        match object::merge_all_of(self.doc, object) {
            Ok(all) => Some(Cow::Owned(all)),
            Err(why) => {
                self.notes.add(&format!("{at}/allOf"), &why);
                None
            }
        }
    }

    /// The type of a `$ref`: a named type for a target in this document.
    fn reference(&mut self, target: &Value, at: &str) -> Ty {
        let Some(pointer) = target.as_str() else {
            self.notes.add(at, "a `$ref` that is not a string");
            return Ty::value();
        };
        if let Some(ident) = self.named.get(pointer) {
            let ident = ident.clone();
            if self.building.contains(pointer) {
                self.recursive.insert(pointer.to_owned());
                return Ty::new(quote!(::std::boxed::Box<#ident>));
            }
            return self.named_ty(pointer, ident);
        }
        let Some(schema) = refs::resolve(self.doc, pointer) else {
            if pointer.starts_with('#') {
                self.errors.push(format!(
                    "`{at}`: `$ref` `{pointer}` points at nothing in this document"
                ));
            } else {
                self.notes.add(
                    at,
                    &format!("`$ref` `{pointer}` is in another document, which is not read"),
                );
            }
            return Ty::value();
        };
        let last = pointer.rsplit('/').next().unwrap_or_default();
        let name = self.scope.claim(names::camel(last, "Type"));
        let ident = names::ident(&name);
        self.named.insert(pointer.to_owned(), ident.clone());
        self.building.insert(pointer.to_owned());
        let empty = Map::new();
        let object = schema.as_object().unwrap_or(&empty);
        let def = match schema {
            Value::Object(_) => self.definition(&ident, object, pointer, 0),
            other => Def::Alias(self.type_at(other, &name, pointer, 0)),
        };
        self.building.remove(pointer);
        let recursive = self.recursive.contains(pointer);
        self.emit(&ident, object, def, recursive);
        self.named_ty(pointer, ident)
    }

    /// A named type; it holds `null` when its schema does.
    fn named_ty(&self, pointer: &str, ident: Ident) -> Ty {
        let nullable = refs::resolve(self.doc, pointer).is_some_and(admits_null);
        Ty {
            tokens: quote!(#ident),
            nullable,
        }
    }

    /// What `ident` is, for the schema `object`.
    fn definition(
        &mut self,
        ident: &Ident,
        object: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Def {
        let name = ident.to_string();
        let Some(object) = self.merged(object, at) else {
            return Def::Alias(Ty::value());
        };
        let object = &*object;
        if let Some(values) = scalar::string_enum(object) {
            return enum_of_strings(&values);
        }
        if object.contains_key("$ref") || union::nullable_alternative(object).is_some() {
            return Def::Alias(self.type_at(&Value::Object(object.clone()), &name, at, depth));
        }
        if let Some(alternatives) = union::alternatives(object) {
            return self.union(&name, &alternatives, at, depth);
        }
        if object.contains_key("properties") {
            return self.structure(&name, object, at, depth);
        }
        Def::Alias(self.inline(object, &name, at, depth))
    }

    /// Pushes the definition of `ident`; its type.
    fn emit(
        &mut self,
        ident: &Ident,
        object: &Map<String, Value>,
        def: Def,
        recursive: bool,
    ) -> Ty {
        let docs = doc_attrs(object);
        let derives = derives();
        let mut nullable = false;
        let def = match def {
            Def::Struct(body) => quote!(#docs #derives pub struct #ident #body),
            Def::Enum { attrs, body } => quote!(#docs #derives #attrs pub enum #ident #body),
            Def::Union(tokens) => quote!(#docs #tokens),
            // An alias of a type that contains itself would be a cycle of
            // aliases (rustc's E0391): a newtype breaks it.
            Def::Alias(ty) if recursive => {
                let ty = ty.tokens;
                quote!(#docs #derives #[serde(transparent)] pub struct #ident(pub #ty);)
            }
            Def::Alias(ty) => {
                nullable = ty.nullable;
                let ty = ty.tokens;
                quote!(#docs pub type #ident = #ty;)
            }
        };
        self.defs.push(def);
        Ty {
            tokens: quote!(#ident),
            nullable,
        }
    }

    /// A schema that needs no definition of its own.
    fn inline(&mut self, object: &Map<String, Value>, hint: &str, at: &str, depth: usize) -> Ty {
        for unsupported in ["not", "if"] {
            if object.contains_key(unsupported) {
                self.notes
                    .add(at, &format!("`{unsupported}` is not supported"));
                return Ty::value();
            }
        }
        if let Some(ty) = scalar::of_values(object) {
            return ty.unwrap_or_else(|what| {
                self.notes.add(at, &what);
                Ty::value()
            });
        }
        match object.get("type") {
            None if object::is_object_like(object) => {
                self.of_type("object", object, hint, at, depth)
            }
            None => Ty::value(),
            Some(Value::String(ty)) => self.of_type(ty, object, hint, at, depth),
            Some(Value::Array(types)) => match union::nullable(types) {
                Some(ty) => self.of_type(ty, object, hint, at, depth).option(),
                None => {
                    self.notes
                        .add(at, "a `type` list that is empty or not of strings");
                    Ty::value()
                }
            },
            Some(_) => {
                self.notes.add(at, "a `type` that is not a string");
                Ty::value()
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
    ) -> Ty {
        match ty {
            "string" => Ty::new(quote!(::std::string::String)),
            "integer" => scalar::integer(object).unwrap_or_else(|what| {
                self.notes.add(at, &what);
                Ty::value()
            }),
            "number" => Ty::new(quote!(f64)),
            "boolean" => Ty::new(quote!(bool)),
            "null" => Ty {
                tokens: quote!(()),
                nullable: true,
            },
            "array" => self.array(object, hint, at, depth),
            "object" => match object::map_values(object) {
                Some((key, values)) => {
                    let values = self.type_at(
                        &values,
                        &format!("{hint} value"),
                        &format!("{at}/{key}"),
                        depth + 1,
                    );
                    let values = values.tokens;
                    Ty::new(quote!(::std::collections::BTreeMap<::std::string::String, #values>))
                }
                None => {
                    Ty::new(quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>))
                }
            },
            other => {
                self.notes.add(at, &format!("unknown type `{other}`"));
                Ty::value()
            }
        }
    }

    /// `Vec<T>`, or a tuple for `items` that is an array (or `prefixItems`).
    fn array(&mut self, object: &Map<String, Value>, hint: &str, at: &str, depth: usize) -> Ty {
        let tuple = match (object.get("prefixItems"), object.get("items")) {
            (Some(Value::Array(items)), _) => Some(("prefixItems", items)),
            (_, Some(Value::Array(items))) => Some(("items", items)),
            _ => None,
        };
        if let Some((key, items)) = tuple {
            let types: Vec<TokenStream> = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let at = format!("{at}/{key}/{i}");
                    self.type_at(item, &format!("{hint} {i}"), &at, depth + 1)
                        .tokens
                })
                .collect();
            return Ty::new(quote!((#(#types,)*)));
        }
        let items = match object.get("items") {
            Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                let at = format!("{at}/items");
                self.type_at(items, &format!("{hint} item"), &at, depth + 1)
                    .tokens
            }
            _ => quote!(::serde_json::Value),
        };
        Ty::new(quote!(::std::vec::Vec<#items>))
    }
}

/// The definition of a named type.
enum Def {
    Struct(TokenStream),
    Enum {
        attrs: TokenStream,
        body: TokenStream,
    },
    /// An enum with its own `Deserialize`, in full.
    Union(TokenStream),
    Alias(Ty),
}

/// Whether an inline schema is a struct or an enum, which Rust must name.
fn needs_definition(object: &Map<String, Value>) -> bool {
    scalar::string_enum(object).is_some()
        || union::alternatives(object).is_some()
        || object.contains_key("properties")
}

/// Whether the schema admits `null` (as far as its `type`, `enum`, `const`
/// and alternatives say).
fn admits_null(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    match object.get("type") {
        Some(Value::String(ty)) => return ty == "null",
        Some(Value::Array(types)) => return types.iter().any(|t| t == "null"),
        _ => {}
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return values.contains(&Value::Null);
    }
    if let Some(value) = object.get("const") {
        return value.is_null();
    }
    if let Some(alternatives) = union::alternatives(object) {
        return alternatives.iter().any(|(_, schema)| admits_null(schema));
    }
    !object.contains_key("$ref") && !object::is_object_like(object) && !object.contains_key("items")
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

/// `#[doc]` lines from a schema's `title` and `description`.
pub fn doc_attrs(object: &Map<String, Value>) -> TokenStream {
    let lines = ["title", "summary", "description"]
        .into_iter()
        .filter_map(|key| object.get(key).and_then(Value::as_str))
        .map(|text| quote!(#[doc = #text]));
    quote!(#(#lines)*)
}

#[cfg(test)]
mod tests;
