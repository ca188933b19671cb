//! The server side: `FooService<S>`, which routes calls to any `S: Foo`.
//!
//! Dispatch (`call_in`) is a `match` on the method name; each arm hands the
//! call, the router's slot and the task's context to the runtime's
//! `dispatch` with a closure that destructures the decoded arguments and
//! calls the trait method. `call` boxes a future that runs `call_in` when
//! first polled.

use proc_macro2::{Delimiter, Group, TokenStream};
use quote::quote;

use super::{Names, ends, place_all, private_ident, relocate};
use crate::ast::{Api, Method};

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names {
        krate,
        service,
        server_ty: s,
        ..
    } = names;
    let vis = &api.item.vis;
    let trait_ident = &api.item.ident;
    let locals = Locals {
        server: private_ident("server"),
        context: private_ident("context"),
    };
    let (method, call, methods, slot, cx) = (
        private_ident("method"),
        private_ident("call"),
        private_ident("methods"),
        private_ident("slot"),
        private_ident("cx"),
    );
    let Locals { server, context } = &locals;
    let arms = api.methods.iter().enumerate().map(|(index, m)| {
        let name = &m.name;
        let aliases = m.aliases();
        let handler = handler(m, trait_ident, s, &locals, krate);
        // Unmet bounds on the method's types are reported on them rather than
        // on `#[rpc]`. The compiler points at the explicit type arguments of
        // `dispatch` when they are given: the args (`Deserialize`) at the
        // parameter list, the result (`T: Serialize`, `E: Into<ErrorObject>`)
        // at the return type, or at the name when there is none.
        let (first, last) = match m.output() {
            Some(ty) => ends(ty),
            None => ends(m.ident()),
        };
        let args = args_type(m, krate);
        let head = place_all(quote!(#krate::__private::dispatch::<), first);
        let inferred = place_all(quote!(, _, _>), first);
        let tail = place_all(
            quote!((#call, &#methods[#index], #handler, #slot, #cx)),
            last,
        );
        let dispatch = quote!(#head #args #inferred #tail);
        quote!(#name #(| #aliases)* => #dispatch)
    });
    let doc = format!(
        "Serves [`{trait_ident}`]: routes each call to the server's method. \
         Build one with [`{trait_ident}::into_service`] and add it to a [`Router`]({krate_doc}::Router).",
        krate_doc = quote!(#krate).to_string().replace(' ', ""),
    );
    quote! {
        #[doc = #doc]
        #vis struct #service<#s> {
            server: #s,
        }

        impl<#s: #trait_ident> #service<#s> {
            /// Wraps `server`.
            pub fn new(server: #s) -> Self {
                #service { server }
            }

            /// The wrapped server.
            pub fn get_ref(&self) -> &#s {
                &self.server
            }

            /// Unwraps the server.
            pub fn into_inner(self) -> #s {
                self.server
            }
        }

        impl<#s: #trait_ident> #krate::RpcService for #service<#s> {
            fn info(&self) -> &'static #krate::ServiceInfo {
                #service::<()>::INFO
            }

            fn call<'a>(
                &'a self,
                #method: &str,
                #call: #krate::Call<'a>,
            ) -> ::core::option::Option<#krate::HandlerFuture<'a>> {
                #krate::__private::call_boxed(self, #method, #call)
            }

            fn call_in<'a>(
                &'a self,
                #method: &str,
                #call: #krate::Call<'a>,
                #slot: ::core::pin::Pin<&mut #krate::HandlerSlot<'a>>,
                #cx: &mut ::core::task::Context<'_>,
            ) -> ::core::option::Option<::core::task::Poll<::core::option::Option<::std::string::String>>> {
                let #methods = #service::<()>::INFO.methods();
                let #server = &self.server;
                let #context = #call.context();
                match #method {
                    #(#arms,)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}

/// The dispatcher's locals that handlers use.
struct Locals {
    server: syn::Ident,
    context: syn::Ident,
}

/// `move |(a, b): (A, B)| <S as Trait>::method(server, a, b)`, with the
/// context passed where the method takes its `#[context]` argument.
fn handler(
    method: &Method,
    trait_ident: &syn::Ident,
    s: &syn::Ident,
    locals: &Locals,
    krate: &syn::Path,
) -> TokenStream {
    let Locals { server, context } = locals;
    let fn_ident = method.ident();
    let args = method
        .args
        .iter()
        .map(|arg| match (&arg.context, arg.ident()) {
            (Some(_), _) => quote!(#context),
            (None, ident) => quote!(#ident),
        });
    let call = quote!(<#s as #trait_ident>::#fn_ident(#server, #(#args),*));
    let params: Vec<_> = method.params().collect();
    let idents = params.iter().filter_map(|arg| arg.ident());
    let types = params.iter().map(|arg| &arg.ty);
    match params.as_slice() {
        [whole] if method.binds_whole_params() => {
            let (ident, ty) = (whole.ident(), &whole.ty);
            quote!(move |#krate::__private::Whole(#ident): #krate::__private::Whole<#ty>| #call)
        }
        _ => quote!(move |(#(#idents,)*): (#(#types,)*)| #call),
    }
}

/// The type the args are decoded into, `(A, B)` or `Whole<T>`, placed over
/// the method's parameter list or its `#[params]` argument's type.
fn args_type(method: &Method, krate: &syn::Path) -> TokenStream {
    let params: Vec<_> = method.params().collect();
    match params.as_slice() {
        [whole] if method.binds_whole_params() => {
            let ty = &whole.ty;
            relocate(quote!(#krate::__private::Whole<#ty>), ty)
        }
        params => {
            let types = params.iter().map(|arg| &arg.ty);
            let mut tuple = Group::new(Delimiter::Parenthesis, quote!(#(#types,)*));
            tuple.set_span(tuple.span().located_at(method.sig.paren_token.span.join()));
            quote!(#tuple)
        }
    }
}
