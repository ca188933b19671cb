//! `openrpc!("path.json")`: a `#[rpc]` trait, and so a typed client, from an
//! OpenRPC document read at compile time.
//!
//! The document is read (`mod.rs`), its `$ref`s followed (`refs`), its
//! methods turned into trait methods (`document`) and its schemas into Rust
//! types (`schema`), named as Rust wants (`names`). The trait then goes
//! through `#[rpc]` like any written by hand.

mod document;
mod names;
mod refs;
mod schema;

use std::path::PathBuf;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

pub fn expand(input: TokenStream) -> TokenStream {
    let path: LitStr = match syn::parse2(input) {
        Ok(path) => path,
        Err(err) => {
            let message = format!(
                "{err}: write `openrpc!(\"path/to/openrpc.json\")`, the path relative to the crate's Cargo.toml"
            );
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    match read(&path) {
        Ok(tokens) => tokens,
        Err(messages) => {
            let errors = messages
                .iter()
                .map(|m| quote_spanned!(path.span()=> ::core::compile_error!(#m);));
            quote!(#(#errors)*)
        }
    }
}

fn read(path: &LitStr) -> Result<TokenStream, Vec<String>> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let file = dir.join(path.value());
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(&file)
        .map_err(|err| vec![format!("cannot read the OpenRPC document {shown}: {err}")])?;
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|err| vec![format!("the OpenRPC document {shown} is not JSON: {err}")])?;
    let api = document::api(&doc).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| format!("{shown}: {e}"))
            .collect::<Vec<_>>()
    })?;
    let notes = api.notes.0.iter().enumerate().map(|(i, note)| {
        // A deprecated item, used: the one stable way for a macro to warn
        // without failing the build. `#[allow(deprecated)]` silences it.
        let ident = format_ident!("__OPENRPC_NOTE_{}", i, span = Span::call_site());
        quote_spanned! {path.span()=>
            #[deprecated(note = #note)]
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #ident: () = ();
            const _: () = #ident;
        }
    });
    let items = api.items;
    Ok(quote! {
        // Cargo rebuilds the crate when the document changes.
        const _: &[u8] = ::core::include_bytes!(#shown);
        #(#notes)*
        #items
    })
}
