//! The server side: `FooService<S>`, which routes calls to any `S: Foo`.
//!
//! Dispatch (`call_in`) is a `match` on the method name; each arm hands the
//! call, the router's slot and the task's context to the runtime's
//! `dispatch` with a closure that destructures the decoded arguments and
//! calls the trait method. `call` boxes a future that runs `call_in` when
//! first polled.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use super::{
    Names, assert_bound, call_over, ends, place_all, private_ident, result_check, type_value,
};
use crate::ast::{Api, Method, ParamsShape};

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
        // on `#[rpc]`, once: the same assertions as the client's come first,
        // and `dispatch` reports the params where they do (see `param_types`)
        // and the result (`T: Serialize`, `E: Into<ErrorObject>`) on the
        // return type, or on the name when there is none.
        let checks = m
            .params()
            .map(|arg| assert_bound(krate, "param", &arg.ty, &arg.ty));
        let result_check = result_check(m, krate);
        let target: &dyn ToTokens = match m.output() {
            Some(ty) => ty,
            None => m.ident(),
        };
        let (_, last) = ends(target);
        let param_types = param_types(m, krate);
        let rest = place_all(quote!(#handler, #slot, #cx), last);
        let args = place_all(quote!(#call, &#methods[#index],), last);
        let dispatcher = match m.attr.stream {
            Some(_) => quote!(#krate::__private::dispatch_stream),
            None => quote!(#krate::__private::dispatch),
        };
        let dispatch = call_over(dispatcher, quote!(#args #param_types, #rest), target);
        quote!(#name #(| #aliases)* => { #(#checks)* #result_check #dispatch })
    });
    // The unsubscribe methods follow the trait's methods in `INFO`.
    let unsubscribes = super::info::unsubscribe_names(api)
        .into_iter()
        .enumerate()
        .map(|(offset, name)| {
            let index = api.methods.len() + offset;
            quote!(#name => #krate::__private::unsubscribe(#call, &#methods[#index], #slot, #cx))
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

        // Serving a `#[deprecated]` method is no use of it: the warning is
        // for callers of the trait, not for the dispatch the macro writes.
        #[allow(deprecated)]
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
                    #(#unsubscribes,)*
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
    match method.params_shape() {
        ParamsShape::Whole(whole) => {
            let (ident, ty) = (whole.ident(), &whole.ty);
            quote!(move |#krate::__private::Whole(#ident): #krate::__private::Whole<#ty>| #call)
        }
        ParamsShape::List(params) => {
            let idents = params.iter().filter_map(|arg| arg.ident());
            let types = params.iter().map(|arg| &arg.ty);
            quote!(move |(#(#idents,)*): (#(#types,)*)| #call)
        }
    }
}

/// The param types as values, `(ty::<A>(), ty::<B>())` or
/// `ty::<Whole<T>>()`, each placed over its type in the trait.
fn param_types(method: &Method, krate: &syn::Path) -> TokenStream {
    match method.params_shape() {
        ParamsShape::Whole(whole) => {
            let ty = &whole.ty;
            type_value(krate, &quote!(#krate::__private::Whole<#ty>), ty)
        }
        ParamsShape::List(params) => {
            let values = params.iter().map(|arg| type_value(krate, &arg.ty, &arg.ty));
            quote!((#(#values,)*))
        }
    }
}
