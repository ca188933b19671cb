//! A method's `errors` as a typed error: an enum deriving `RpcError`, one
//! variant per code, its `data` typed from our documents' `x-error-data`
//! (any JSON value otherwise, kept whole), so a generated client's errors
//! come back typed and the trait's server sends them with their codes.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::{Map, Value};

use super::names::{self, Scope};
use super::refs;
use super::schema::Types;

/// The error enums of one document, one per distinct list of errors.
#[derive(Default)]
pub struct ErrorEnums {
    /// Each list already given an enum, by its JSON text, and the enum.
    seen: Vec<(String, Ident)>,
    pub defs: Vec<TokenStream>,
}

/// One error of a method's list.
struct Entry {
    code: i64,
    message: String,
    /// The schema of its `data`, from `x-error-data`, and where it is.
    data: Option<Value>,
    data_at: String,
}

impl ErrorEnums {
    /// The error type of `method` (at `at`): an enum of its `errors`, or
    /// `None` for a method that lists none.
    pub fn of(
        &mut self,
        doc: &Value,
        method: &Map<String, Value>,
        at: &str,
        types: &mut Types,
    ) -> Option<Ident> {
        let entries = entries(doc, method, at);
        if entries.is_empty() {
            return None;
        }
        let key = entries
            .iter()
            .map(|e| format!("{} {} {:?}", e.code, e.message, e.data))
            .collect::<Vec<_>>()
            .join("\n");
        if let Some((_, ident)) = self.seen.iter().find(|(seen, _)| *seen == key) {
            return Some(ident.clone());
        }
        let name = method
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ident = names::ident(&types.claim(names::camel(&format!("{name} error"), "Error")));
        let mut variants = Scope::default();
        let body: Vec<TokenStream> = entries
            .iter()
            .map(|entry| {
                let variant = names::ident(
                    &variants.claim(names::camel(&entry.message, &format!("Code{}", entry.code))),
                );
                let (code, message) = (entry.code, &entry.message);
                // A code JSON-RPC reserves is the document's to give: the
                // derive wants it said.
                let reserved = (-32768..=-32000).contains(&code).then(|| quote!(reserved,));
                let data = match &entry.data {
                    Some(schema) => {
                        let hint = format!("{} {} data", ident, variant);
                        let ty = types.rust_type(schema, &hint, &entry.data_at);
                        quote!((#ty))
                    }
                    None => quote!((::core::option::Option<::serde_json::Value>)),
                };
                quote!(#[rpc_error(code = #code, #reserved message = #message)] #variant #data)
            })
            .collect();
        let doc_line = format!("The errors of `{name}`, as its document lists them.");
        self.defs.push(quote! {
            #[doc = #doc_line]
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::typed_rpc::RpcError)]
            pub enum #ident { #(#body,)* }
        });
        self.seen.push((key, ident.clone()));
        Some(ident)
    }
}

/// The method's errors, `$ref`s followed, each code once.
fn entries(doc: &Value, method: &Map<String, Value>, at: &str) -> Vec<Entry> {
    let list = method.get("errors").and_then(Value::as_array);
    let mut entries: Vec<Entry> = Vec::new();
    for error in list.into_iter().flatten() {
        let Some(error) = refs::follow(doc, error) else {
            continue;
        };
        let (Some(code), Some(message)) = (error["code"].as_i64(), error["message"].as_str())
        else {
            continue;
        };
        if entries.iter().any(|e| e.code == code) {
            continue;
        }
        entries.push(Entry {
            code,
            message: message.to_owned(),
            data: method
                .get("x-error-data")
                .and_then(|d| d.get(code.to_string()))
                .cloned(),
            data_at: format!("{at}/x-error-data/{code}"),
        });
    }
    entries
}
