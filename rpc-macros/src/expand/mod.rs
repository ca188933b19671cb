//! Rendering: the trait itself, its service (server side) and its client.

mod client;
mod info;
mod server;
mod trait_def;

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};
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
    let mut api = Api::from_syn(&cx, attrs, item);
    let verdict = check::check(&cx, &api);
    let errors = cx.check().err().map(|err| err.to_compile_error());
    // Whatever is valid is still generated, so code that implements the trait
    // or uses its service and client reports nothing beyond the errors above:
    // a method with an error of its own is left out of the service and client;
    // a trait that cannot be served at all is emitted alone.
    if verdict.fatal {
        let trait_def = trait_def::render(&api, None);
        return quote!(#trait_def #errors);
    }
    let mut rejected = verdict.rejected.into_iter();
    api.methods.retain(|_| !rejected.next().unwrap_or(false));
    let names = Names::new(&api);
    let trait_def = trait_def::render(&api, Some(&names));
    let info = info::render(&api, &names);
    let server = server::render(&api, &names);
    let client = client::render(&api, &names);
    quote!(#trait_def #info #server #client #errors)
}

/// The names the expansion defines or refers to.
pub struct Names {
    pub krate: syn::Path,
    pub service: Ident,
    pub client: Ident,
    /// The client's batch builder.
    pub batch: Ident,
    /// The service's type parameter, the server (`S` unless the trait uses that name).
    pub server_ty: Ident,
    /// The client's type parameter, the transport (`T` unless the trait uses that name).
    pub transport_ty: Ident,
}

impl Names {
    fn new(api: &Api) -> Self {
        let TraitAttrs { krate, .. } = &api.attrs;
        let ident = &api.item.ident;
        // Generic parameters are not hygienic: a user type `S` or `T` named in
        // a signature would resolve to ours inside the generated impls.
        let mut taken = HashSet::new();
        collect_idents(api.item.to_token_stream(), &mut taken);
        Names {
            krate: krate.clone(),
            service: format_ident!("{}Service", ident),
            client: format_ident!("{}Client", ident),
            batch: format_ident!("{}Batch", ident),
            server_ty: unused_ident("S", &taken),
            transport_ty: unused_ident("T", &taken),
        }
    }
}

fn collect_idents(tokens: TokenStream, out: &mut HashSet<String>) {
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                out.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect_idents(group.stream(), out),
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// `base`, or `base_`, `base__`, ... : the first that is not in `taken`.
fn unused_ident(base: &str, taken: &HashSet<String>) -> Ident {
    let mut name = base.to_owned();
    while taken.contains(&name) {
        name.push('_');
    }
    Ident::new(&name, Span::call_site())
}

/// `tokens`, placed over `target` in compiler messages, while every name in
/// them resolves as before (`located_at` keeps the hygiene).
///
/// A trait bound that generated code puts on a user's type is then reported on
/// that type instead of on `#[rpc]`. The compiler spans an expression from the
/// start of its first token to the end of its last, so the first tokens are
/// placed on the target's first token and the last one on its last: a call
/// `path(args)` or a type `Path<Args>` then underlines the whole target.
pub(crate) fn relocate(tokens: TokenStream, target: &dyn ToTokens) -> TokenStream {
    let (first, last) = ends(target);
    let mut tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let end = tokens.pop();
    let mut relocated: TokenStream = tokens.into_iter().map(|t| place(t, first)).collect();
    relocated.extend(end.map(|t| place(t, last)));
    relocated
}

/// `path(args)` placed over `target` like [`relocate`] does, but with `args`
/// left where they are, so that each can be placed over its own target.
pub(crate) fn call_over(
    path: TokenStream,
    args: TokenStream,
    target: &dyn ToTokens,
) -> TokenStream {
    let (_, last) = ends(target);
    let path = relocate(path, target);
    let mut args = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, args);
    args.set_span(args.span().located_at(last));
    quote!(#path #args)
}

/// `T` of a method's return type `Result<T, E>`: as written when the type
/// spells it out, else through the alias.
fn result_ok(ty: &Type, krate: &syn::Path) -> TokenStream {
    match ast::result_ok_type(ty) {
        Some(ok) => quote!(#ok),
        None => quote!(<#ty as #krate::__private::ResultType>::Ok),
    }
}

/// The assertion on a method's result type, made by the client and the
/// service alike. Only a type spelled out is asserted: through an alias, a
/// return type that is not a `Result` would be reported once more.
fn result_check(method: &ast::Method, krate: &syn::Path) -> Option<TokenStream> {
    let ty = match (method.kind(), method.output()) {
        (crate::attr::Kind::Method, Some(ty)) => ty,
        _ => return None,
    };
    let ok = method.answer_type()?;
    Some(assert_bound(krate, "result", ok, ty))
}

/// `__private::ty::<#ty>()`, the type `ty` as a value, placed over `target`.
pub(crate) fn type_value(
    krate: &syn::Path,
    ty: &dyn ToTokens,
    target: &dyn ToTokens,
) -> TokenStream {
    relocate(quote!(#krate::__private::ty::<#ty>()), target)
}

/// `__private::#check(ty::<#ty>());` placed over `target`: the assertion that
/// `ty` meets the bound `check` puts on it, made before anything else uses
/// the type.
///
/// Its error is reported on `target`, and every later use of the type that
/// misses the same bound at the same place is not reported again: the
/// compiler drops an error implied by one it has reported at the same span,
/// and identical errors from the client and the service are shown once.
pub(crate) fn assert_bound(
    krate: &syn::Path,
    check: &str,
    ty: &dyn ToTokens,
    target: &dyn ToTokens,
) -> TokenStream {
    let check = Ident::new(check, Span::call_site());
    let call = call_over(
        quote!(#krate::__private::#check),
        type_value(krate, ty, target),
        target,
    );
    quote!(#call;)
}

/// The spans of the first and the last token of `target`.
fn ends(target: &dyn ToTokens) -> (Span, Span) {
    let mut tokens = target.to_token_stream().into_iter();
    let first = tokens
        .next()
        .map_or_else(Span::call_site, |token| token.span());
    let last = tokens.last().map_or(first, |token| token.span());
    (first, last)
}

/// `tokens`, all placed at `span` (see [`relocate`]).
pub(crate) fn place_all(tokens: TokenStream, span: Span) -> TokenStream {
    tokens.into_iter().map(|t| place(t, span)).collect()
}

fn place(mut token: TokenTree, span: Span) -> TokenTree {
    if let TokenTree::Group(group) = &token {
        let stream = group.stream().into_iter().map(|t| place(t, span)).collect();
        let mut placed = proc_macro2::Group::new(group.delimiter(), stream);
        placed.set_span(group.span().located_at(span));
        token = TokenTree::Group(placed);
    } else {
        token.set_span(token.span().located_at(span));
    }
    token
}

/// A local variable name that user code in the same expansion cannot see or shadow.
pub(crate) fn private_ident(name: &str) -> Ident {
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
