//! An OpenRPC document to a `#[rpc]` trait: one method per document method,
//! with its params, result and docs, and the types they use.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value, json};

use super::errors::ErrorEnums;
use super::names::{self, Scope};
use super::schema::{Notes, Types, doc_attrs};
use super::{meta, refs};

/// What a document expands to, and what it could not say in Rust.
pub struct Api {
    pub items: TokenStream,
    pub notes: Notes,
}

/// The trait and types of `doc`, or every reason it is not an OpenRPC
/// document this can read.
pub fn api(doc: &Value) -> Result<Api, Vec<String>> {
    let problems = meta::check(doc);
    let (Some(root), Some(methods)) = (doc.as_object(), doc["methods"].as_array()) else {
        return Err(problems);
    };
    let info = root.get("info").and_then(Value::as_object);
    let title = info
        .and_then(|i| i.get("title"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let trait_ident = names::ident(&names::camel(title, "Api"));
    let trait_docs = info.map(doc_attrs);

    let mut types = Types::new(doc);
    let mut error_enums = ErrorEnums::default();
    let mut errors = Vec::new();
    let unsubscribes = unsubscribe_names(doc, methods);
    let mut fns = Scope::reserving(&["new", "transport", "into_transport", "into_service"]);
    let mut rendered = Vec::new();
    for (i, method) in methods.iter().enumerate() {
        let at = format!("#/methods/{i}");
        let method = refs::follow(doc, method).and_then(Value::as_object);
        // An unsubscribe method comes with the streaming method it ends.
        let name = method.and_then(|m| m.get("name")).and_then(Value::as_str);
        if name.is_some_and(|name| unsubscribes.contains(&name)) {
            continue;
        }
        match method.map(|m| self::method(doc, m, &at, &mut types, &mut error_enums, &mut fns)) {
            Some(Ok(Some(tokens))) => rendered.push(tokens),
            Some(Ok(None)) => {}
            Some(Err(err)) => errors.push(err),
            None => errors.push(format!("`{at}` is not a method object")),
        }
    }
    // Where the meta-schema's checks found problems, the methods' own are
    // the same ones said again: only the schemas' dangling `$ref`s are added.
    if !problems.is_empty() {
        errors = problems;
    }
    errors.append(&mut types.errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let defs = &types.defs;
    let error_defs = &error_enums.defs;
    let items = quote! {
        #trait_docs
        #[::typed_rpc::rpc]
        pub trait #trait_ident {
            #(#rendered)*
        }
        #(#defs)*
        #(#error_defs)*
    };
    Ok(Api {
        items,
        notes: types.notes,
    })
}

/// One trait method; `None` for a method left out (with a note).
fn method(
    doc: &Value,
    method: &Map<String, Value>,
    at: &str,
    types: &mut Types,
    error_enums: &mut ErrorEnums,
    fns: &mut Scope,
) -> Result<Option<TokenStream>, String> {
    let Some(name) = method.get("name").and_then(Value::as_str) else {
        return Err(format!("`{at}` has no `name` string"));
    };
    if name.starts_with("rpc.") {
        types.notes.0.push(format!(
            "openrpc: method `{name}` is left out: names that start with `rpc.` are reserved"
        ));
        return Ok(None);
    }
    let style = match method.get("paramStructure").and_then(Value::as_str) {
        None | Some("either") => None,
        Some("by-name") => Some("named"),
        Some("by-position") => Some("positional"),
        Some(other) => {
            return Err(format!(
                "`{at}/paramStructure` is \"{other}\"; expected \"by-name\", \"by-position\" or \"either\""
            ));
        }
    };
    let params = params(doc, method, at)?;
    // typed-rpc's own documents mark a param that is the whole `params`
    // value (`#[params] values: Vec<i64>`), which OpenRPC has no word for.
    let args = match (method.get("x-params-whole"), params.as_slice()) {
        (Some(Value::Bool(true)), [whole]) => whole_arg(name, whole, types),
        _ => args(name, &params, style == Some("named"), types),
    };
    let fn_ident = names::ident(&fns.claim(names::snake(name, "call")));
    let style = style.map(|s| quote!(, param_style = #s));
    let mut docs = doc_attrs(method);
    if method.get("deprecated") == Some(&Value::Bool(true)) {
        docs.extend(quote!(#[doc = ""] #[doc = "Deprecated by the document."]));
    }
    let result = match method.get("result") {
        None => None,
        Some(result) => {
            let result = descriptor(doc, result, &format!("{at}/result"))?;
            let hint = format!("{name} result");
            Some(types.rust_type(&result.schema, &hint, &result.at))
        }
    };
    let stream = stream(method, at, types)?;
    let error = match error_enums.of(doc, method, at, types) {
        Some(error) => quote!(#error),
        None => quote!(::typed_rpc::ErrorObject),
    };
    Ok(Some(match (result, stream) {
        (Some(_), Some((names, item))) => quote! {
            #docs
            #[method(name = #name #style, #names)]
            async fn #fn_ident(&self, #(#args),*) -> ::typed_rpc::RpcResult<
                impl ::typed_rpc::__private::Stream<Item = ::typed_rpc::RpcResult<#item>>
                    + ::core::marker::Send + 'static
            >;
        },
        (Some(result), None) => quote! {
            #docs
            #[method(name = #name #style)]
            async fn #fn_ident(&self, #(#args),*) -> ::core::result::Result<#result, #error>;
        },
        (None, _) => quote! {
            #docs
            #[notification(name = #name #style)]
            async fn #fn_ident(&self, #(#args),*);
        },
    }))
}

/// The `x-stream` extension of a streaming method (our documents' own; see
/// the guide's OpenRPC chapter): the `stream(...)` of its `#[method]` and its item type.
fn stream(
    method: &Map<String, Value>,
    at: &str,
    types: &mut Types,
) -> Result<Option<(TokenStream, TokenStream)>, String> {
    let Some(stream) = method.get("x-stream") else {
        return Ok(None);
    };
    let name = |key: &str| {
        stream.get(key).and_then(Value::as_str).ok_or_else(|| {
            format!("`{at}/x-stream` has no `{key}` string (see typed-rpc's README, \"Our extensions to OpenRPC\")")
        })
    };
    let (notification, unsubscribe) = (name("notification")?, name("unsubscribe")?);
    let method_name = method
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let item = stream
        .get("item")
        .or_else(|| method.get("result")?.get("schema"))
        .cloned()
        .unwrap_or(json!({}));
    let item = types.rust_type(
        &item,
        &format!("{method_name} item"),
        &format!("{at}/x-stream/item"),
    );
    let names = quote!(stream(notification = #notification, unsubscribe = #unsubscribe));
    Ok(Some((names, item)))
}

/// The unsubscribe methods the document's streaming methods name.
fn unsubscribe_names<'d>(doc: &'d Value, methods: &'d [Value]) -> Vec<&'d str> {
    methods
        .iter()
        .filter_map(|method| {
            refs::follow(doc, method)?
                .get("x-stream")?
                .get("unsubscribe")?
                .as_str()
        })
        .collect()
}

/// A content descriptor, its `$ref` followed.
struct Descriptor {
    name: String,
    schema: Value,
    required: bool,
    /// Where its schema is, for notes.
    at: String,
}

fn descriptor(doc: &Value, value: &Value, at: &str) -> Result<Descriptor, String> {
    let object = refs::follow(doc, value)
        .and_then(Value::as_object)
        .ok_or_else(|| format!("`{at}` is not a content descriptor (or a `$ref` to one)"))?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the content descriptor at `{at}` has no `name` string"))?;
    Ok(Descriptor {
        name: name.to_owned(),
        schema: object.get("schema").cloned().unwrap_or(json!({})),
        // OpenRPC's default: a param is optional unless it says otherwise.
        required: object.get("required") == Some(&Value::Bool(true)),
        at: format!("{at}/schema"),
    })
}

fn params(doc: &Value, method: &Map<String, Value>, at: &str) -> Result<Vec<Descriptor>, String> {
    match method.get("params") {
        None => Ok(Vec::new()),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, p)| descriptor(doc, p, &format!("{at}/params/{i}")))
            .collect(),
        Some(_) => Err(format!("`{at}/params` is not an array")),
    }
}

/// The one `#[params]` argument that takes the whole `params` value.
fn whole_arg(method: &str, whole: &Descriptor, types: &mut Types) -> Vec<TokenStream> {
    let ident = names::ident(&names::snake(&whole.name, "params"));
    let ty = types.rust_type(
        &whole.schema,
        &format!("{method} {}", whole.name),
        &whole.at,
    );
    vec![quote!(#[params] #ident: #ty)]
}

/// The Rust arguments of a method's params. By name, each argument is named
/// as its param (the wire name is the argument's name); when a name cannot
/// be an identifier, the params become one `#[params]` struct whose fields
/// keep the names.
fn args(method: &str, params: &[Descriptor], by_name: bool, types: &mut Types) -> Vec<TokenStream> {
    if by_name && !params.iter().all(|p| names::is_identifier(&p.name)) {
        let properties: Map<String, Value> = params
            .iter()
            .map(|p| (p.name.clone(), p.schema.clone()))
            .collect();
        let required: Vec<&str> = params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_str())
            .collect();
        // Closed: the server refuses a param it does not know.
        let schema = json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false});
        let ty = types.rust_type(&schema, &format!("{method} params"), "#/methods");
        return vec![quote!(#[params] params: #ty)];
    }
    let mut scope = Scope::reserving(&["self"]);
    params
        .iter()
        .map(|p| {
            let name = match by_name {
                true => scope.claim(p.name.clone()),
                false => scope.claim(names::snake(&p.name, "param")),
            };
            let ident = names::ident(&name);
            let ty = types.rust_type(&p.schema, &format!("{method} {}", p.name), &p.at);
            match p.required {
                true => quote!(#ident: #ty),
                false => quote!(#ident: ::core::option::Option<#ty>),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(doc: Value) -> Result<String, Vec<String>> {
        api(&doc).map(|api| api.items.to_string())
    }

    #[test]
    fn a_param_marked_as_the_whole_params_value_is_a_params_argument() {
        let out = expand(json!({
            "openrpc": "1.3.2", "info": {"title": "calc", "version": "1"},
            "methods": [{"name": "sum", "paramStructure": "by-position", "x-params-whole": true,
                 "params": [{"name": "values", "required": true,
                             "schema": {"type": "array", "items": {"type": "integer"}}}],
                 "result": {"name": "result", "schema": {"type": "integer"}}}]
        }))
        .unwrap();
        assert!(
            out.contains(
                "async fn sum (& self , # [params] values : :: std :: vec :: Vec < i64 >)"
            ),
            "{out}"
        );
    }

    #[test]
    fn methods_become_trait_methods_with_their_param_structure() {
        let out = expand(json!({
            "openrpc": "1.3.2", "info": {"title": "pet store", "version": "1"},
            "methods": [
                {"name": "getPet", "paramStructure": "by-name",
                 "params": [{"name": "petId", "required": true, "schema": {"type": "integer"}},
                            {"name": "verbose", "schema": {"type": "boolean"}}],
                 "result": {"name": "pet", "schema": {"type": "string"}}},
                {"name": "ping", "paramStructure": "by-position", "params": [],
                 "result": {"$ref": "#/components/contentDescriptors/Pong"}},
                {"name": "notify", "params": [{"$ref": "#/components/contentDescriptors/Pong"}]}
            ],
            "components": {"contentDescriptors": {"Pong": {"name": "pong", "schema": {"type": "string"}}}}
        }))
        .unwrap();
        assert!(out.contains("pub trait PetStore"), "{out}");
        assert!(out.contains("# [method (name = \"getPet\" , param_style = \"named\")] async fn get_pet (& self , petId : i64 , verbose : :: core :: option :: Option < bool >)"), "{out}");
        assert!(out.contains("# [method (name = \"ping\" , param_style = \"positional\")] async fn ping (& self ,) -> :: core :: result :: Result < :: std :: string :: String , :: typed_rpc :: ErrorObject >"), "{out}");
        assert!(out.contains("# [notification (name = \"notify\")] async fn notify (& self , pong : :: core :: option :: Option < :: std :: string :: String >) ;"), "{out}");
    }

    #[test]
    fn by_name_params_that_are_not_identifiers_become_a_params_struct() {
        let out = expand(json!({
            "openrpc": "1.3.2", "info": {"title": "x", "version": "1"},
            "methods": [{"name": "find", "paramStructure": "by-name",
                 "params": [{"name": "pet-id", "required": true, "schema": {"type": "integer"}}],
                 "result": {"name": "r", "schema": {}}}]
        }))
        .unwrap();
        assert!(out.contains("# [params] params : FindParams"), "{out}");
        assert!(
            out.contains("# [serde (rename = \"pet-id\")] pub pet_id : i64"),
            "{out}"
        );
    }

    #[test]
    fn a_document_the_meta_schema_refuses_is_refused_with_every_reason() {
        assert_eq!(
            expand(json!([])).unwrap_err(),
            ["`#` is not an OpenRPC document: not a JSON object"]
        );
        assert_eq!(
            expand(
                json!({"openrpc": "1.3.2", "info": {"title": "t", "version": "1"}, "methods": [
                    {"params": []},
                    {"name": "c", "params": [], "result": {"$ref": "#/nowhere"}}
                ]})
            )
            .unwrap_err(),
            [
                "`#/methods/0`: a method needs `name`",
                "`#/methods/1/result`: `$ref` \"#/nowhere\" points at nothing in this document",
            ]
        );
    }

    #[test]
    fn reserved_names_are_left_out_with_a_note() {
        let api = api(&json!({"openrpc": "1.3.2", "info": {"title": "t", "version": "1"},
            "methods": [{"name": "rpc.discover", "params": [], "result": {"name": "d", "schema": {}}}]}))
        .unwrap();
        assert_eq!(api.notes.0.len(), 1);
        assert!(!api.items.to_string().contains("discover"));
    }
}
