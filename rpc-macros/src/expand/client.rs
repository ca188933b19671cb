//! The client side: `FooClient<T>`, one async method per RPC method over any transport.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, private_ident};
use crate::ast::{Api, Method};
use crate::attr::Kind;
use crate::check::result_ok_type;

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names { krate, client, .. } = names;
    let vis = &api.item.vis;
    let trait_ident = &api.item.ident;
    let methods = api
        .methods
        .iter()
        .enumerate()
        .map(|(index, method)| client_method(method, index, names));
    let doc = format!(
        "A typed client of [`{trait_ident}`]: each method sends its call over the transport and decodes the reply."
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        #vis struct #client<T> {
            transport: T,
        }

        impl<T> #client<T> {
            /// A client that sends its calls over `transport`.
            pub const fn new(transport: T) -> Self {
                #client { transport }
            }

            /// The transport.
            pub fn transport(&self) -> &T {
                &self.transport
            }

            /// Unwraps the transport.
            pub fn into_transport(self) -> T {
                self.transport
            }
        }

        impl<T: #krate::client::Transport> #client<T> {
            #(#methods)*
        }
    }
}

fn client_method(method: &Method, index: usize, names: &Names) -> TokenStream {
    let Names { krate, service, .. } = names;
    let (info, params) = (private_ident("method"), private_ident("params"));
    let fn_ident = method.ident();
    let idents: Vec<_> = method.params().filter_map(|arg| arg.ident()).collect();
    let types = method.params().map(|arg| &arg.ty);
    let docs = &method.docs;
    let docs = (!docs.is_empty()).then(|| quote!(#[doc = #docs]));
    let build_params = match idents.as_slice() {
        [ident] if method.binds_whole_params() => {
            quote!(#krate::__private::whole_params(#info, &#ident))
        }
        _ => quote! {{
            let mut #params = #krate::__private::params(#info);
            #(#params.push(&#idents);)*
            #params.finish()
        }},
    };
    let (ok, send) = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) => {
            let ok = match result_ok_type(ty) {
                Some(ok) => quote!(#ok),
                None => quote!(<#ty as #krate::__private::ResultType>::Ok),
            };
            (ok, quote!(request))
        }
        _ => (quote!(()), quote!(notify)),
    };
    quote! {
        #docs
        pub async fn #fn_ident(&self, #(#idents: #types),*) -> ::core::result::Result<#ok, #krate::ClientError> {
            let #info = &#service::<()>::INFO.methods()[#index];
            #krate::__private::#send(&self.transport, #info, #build_params).await
        }
    }
}
