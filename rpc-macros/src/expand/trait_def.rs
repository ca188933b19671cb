//! The trait, as the user implements it.
//!
//! `async fn`s become `fn`s returning `impl Future + Send`, so the server can
//! run handlers on a multi-threaded runtime; our attributes are stripped; the
//! trait gains `Send + Sync + 'static` and an `into_service` method.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, Pat, ReturnType, TraitItem, TraitItemFn, parse_quote};

use super::Names;
use crate::ast::{ARG_ATTRS, Api, METHOD_ATTRS};
use crate::attr::is_ours;

/// Renders the trait; `names` is `None` when the trait cannot be served (it
/// is generic) and only the trait itself is emitted.
pub fn render(api: &Api, names: Option<&Names>) -> TokenStream {
    let mut item = api.item.clone();
    item.supertraits.push(parse_quote!(::core::marker::Send));
    item.supertraits.push(parse_quote!(::core::marker::Sync));
    item.supertraits.push(parse_quote!('static));
    item.colon_token.get_or_insert_with(Default::default);
    for trait_item in &mut item.items {
        if let TraitItem::Fn(f) = trait_item {
            rewrite_method(f);
        }
    }
    if let Some(Names { service, .. }) = names {
        let doc = format!("Wraps this server in a [`{service}`], ready to be added to a router.");
        item.items.push(parse_quote! {
            #[doc = #doc]
            fn into_service(self) -> #service<Self>
            where
                Self: ::core::marker::Sized,
            {
                #service::new(self)
            }
        });
    }
    quote!(#item)
}

fn rewrite_method(f: &mut TraitItemFn) {
    f.attrs.retain(|attr| !is_ours(attr, METHOD_ATTRS));
    // Patterns are an error in a method without a body, and `check` has
    // reported those it rejects (`(a, b)`, `mut self`) already: they are
    // emitted as `_` and `self` so that the compiler does not report them again.
    let bodiless = f.default.is_none();
    for input in &mut f.sig.inputs {
        match input {
            FnArg::Typed(arg) => {
                arg.attrs.retain(|attr| !is_ours(attr, ARG_ATTRS));
                let plain =
                    matches!(&*arg.pat, Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none());
                if bodiless && !plain {
                    *arg.pat = parse_quote!(_);
                }
            }
            FnArg::Receiver(receiver) if bodiless && receiver.reference.is_none() => {
                receiver.mutability = None;
            }
            FnArg::Receiver(_) => {}
        }
    }
    if f.sig.asyncness.take().is_none() {
        return;
    }
    let output = match &f.sig.output {
        ReturnType::Type(_, ty) => quote!(#ty),
        ReturnType::Default => quote!(()),
    };
    f.sig.output = parse_quote! {
        -> impl ::core::future::Future<Output = #output> + ::core::marker::Send
    };
    if let Some(body) = &mut f.default {
        *body = parse_quote!({ async move #body });
    }
}
