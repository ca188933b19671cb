//! `openrpc!("path.json")`: a `#[rpc]` trait, and so a typed client, from an
//! OpenRPC document read at compile time.
//!
//! The document is read (`mod.rs`), its `$ref`s followed (`refs`), its
//! methods turned into trait methods (`document`) and its schemas into Rust
//! types (`schema`), named as Rust wants (`names`). The trait then goes
//! through `#[rpc]` like any written by hand.

mod document;
mod errors;
mod meta;
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
    let file = located(dir.join(path.value()), &path.value());
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

/// `in_crate` (the path relative to the crate's `Cargo.toml`) when it
/// exists, else the path relative to the file that calls `openrpc!`, when
/// that file is known and holds it.
fn located(in_crate: PathBuf, path: &str) -> PathBuf {
    if in_crate.exists() || !proc_macro::is_available() {
        return in_crate;
    }
    let caller = proc_macro::Span::call_site().local_file();
    let beside = caller.and_then(|file| Some(file.parent()?.join(path)));
    beside.filter(|file| file.exists()).unwrap_or(in_crate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_file(path: &str) -> String {
        expand(quote!(#path)).to_string()
    }

    #[test]
    fn a_missing_or_malformed_document_is_a_compile_error_that_says_why() {
        let missing = expand_file("no/such/openrpc.json");
        assert!(
            missing.starts_with(":: core :: compile_error !"),
            "{missing}"
        );
        assert!(
            missing.contains("cannot read the OpenRPC document"),
            "{missing}"
        );

        let dir = std::env::temp_dir().join(format!("openrpc-macro-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_json = dir.join("not-json.json");
        std::fs::write(&not_json, "{\"openrpc\": ").unwrap();
        let out = expand_file(not_json.to_str().unwrap());
        assert!(out.contains("is not JSON: EOF while parsing"), "{out}");

        let no_methods = dir.join("no-methods.json");
        std::fs::write(&no_methods, r#"{"openrpc": "1.3.2"}"#).unwrap();
        let out = expand_file(no_methods.to_str().unwrap());
        assert!(
            out.contains("no-methods.json: `#`: an OpenRPC document needs `info`"),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Writes what `openrpc!` expands the document `OPENRPC_DOC` to, its
    /// notes left out, to `OPENRPC_OUT`: the hand-written side of
    /// `bench/compile_openrpc.sh`.
    #[test]
    #[ignore = "a tool of bench/compile_openrpc.sh"]
    fn dump_expansion() {
        let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("set {name}"));
        let text = std::fs::read_to_string(var("OPENRPC_DOC")).unwrap();
        let api = document::api(&serde_json::from_str(&text).unwrap()).unwrap();
        let header = "//! The trait and types `openrpc!` writes for the document, written out.\n\
                      #![allow(dead_code)]\n";
        std::fs::write(var("OPENRPC_OUT"), format!("{header}{}\n", api.items)).unwrap();
    }

    #[test]
    fn the_input_is_one_string_literal() {
        let out = expand(quote!(petstore)).to_string();
        assert!(
            out.contains("write `openrpc!(\\\"path/to/openrpc.json\\\")`"),
            "{out}"
        );
    }

    #[test]
    fn the_expansion_includes_the_document_and_warns_of_each_fallback() {
        let dir = std::env::temp_dir().join(format!("openrpc-macro-ok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let doc = dir.join("doc.json");
        std::fs::write(
            &doc,
            r#"{"openrpc": "1.3.2", "info": {"title": "t", "version": "1"}, "methods": [
                {"name": "m", "params": [{"name": "p", "schema": {"not": {}}}], "result": {"name": "r", "schema": {}}}]}"#,
        )
        .unwrap();
        let out = expand_file(doc.to_str().unwrap());
        assert!(out.contains(":: core :: include_bytes !"), "{out}");
        assert!(
            out.contains("# [deprecated (note = \"openrpc: `#/methods/0/params/0/schema`: `not` is not supported; it is `serde_json::Value`\")]"),
            "{out}"
        );
        assert!(out.contains("const _ : () = __OPENRPC_NOTE_0 ;"), "{out}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
