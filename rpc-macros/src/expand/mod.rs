//! Rendering: the trait itself, its service (server side) and its client.

mod client;
mod info;
mod server;
mod trait_def;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Type};

use crate::ast::{self, Api};
use crate::attr::TraitAttrs;
use crate::check;
use crate::ctxt::Ctxt;

pub fn rpc(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match ast::parse_trait(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            let err = err.to_compile_error();
            return quote!(#input #err);
        }
    };
    let cx = Ctxt::default();
    let attrs = TraitAttrs::parse(&cx, args);
    let api = Api::from_syn(&cx, attrs, item);
    check::check(&cx, &api);
    match cx.check() {
        Ok(()) => {
            let names = Names::new(&api);
            let trait_def = trait_def::render(&api, Some(&names));
            let info = info::render(&api, &names);
            let server = server::render(&api, &names);
            let client = client::render(&api, &names);
            quote!(#trait_def #info #server #client)
        }
        // The trait is still emitted, so code that implements or uses it
        // reports nothing beyond the errors above.
        Err(err) => {
            let trait_def = trait_def::render(&api, None);
            let err = err.to_compile_error();
            quote!(#trait_def #err)
        }
    }
}

/// The names the expansion defines or refers to.
pub struct Names {
    pub krate: syn::Path,
    pub service: Ident,
    pub client: Ident,
}

impl Names {
    fn new(api: &Api) -> Self {
        let TraitAttrs { krate, .. } = &api.attrs;
        let ident = &api.item.ident;
        Names {
            krate: krate.clone(),
            service: format_ident!("{}Service", ident),
            client: format_ident!("{}Client", ident),
        }
    }
}

/// A local variable name that user code in the same expansion cannot see or shadow.
fn private_ident(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The type as it reads in source: `Vec<i64>`, `HashMap<String, i64>`.
fn type_string(ty: &Type) -> String {
    let spaced = quote!(#ty).to_string();
    let chars: Vec<char> = spaced.chars().collect();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let mut out = String::with_capacity(spaced.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let between_words = is_word(prev) && is_word(next);
            if !(between_words || prev == ',' || prev == ';') {
                continue;
            }
        }
        out.push(c);
    }
    out
}
