//! The client side: `FooClient<T>`, one async method per RPC method over any transport.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, call_over, private_ident, relocate};
use crate::ast::{Api, Method};
use crate::attr::Kind;
use crate::check::result_ok_type;

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names {
        krate,
        client,
        transport_ty: t,
        ..
    } = names;
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
        #vis struct #client<#t> {
            transport: #t,
        }

        impl<#t> #client<#t> {
            /// A client that sends its calls over `transport`.
            pub const fn new(transport: #t) -> Self {
                #client { transport }
            }

            /// The transport.
            pub fn transport(&self) -> &#t {
                &self.transport
            }

            /// Unwraps the transport.
            pub fn into_transport(self) -> #t {
                self.transport
            }
        }

        impl<#t: #krate::client::Transport> #client<#t> {
            #(#methods)*
        }
    }
}

fn client_method(method: &Method, index: usize, names: &Names) -> TokenStream {
    let Names { krate, service, .. } = names;
    let (info, params) = (private_ident("method"), private_ident("params"));
    let fn_ident = method.ident();
    let args: Vec<_> = method.params().collect();
    let idents: Vec<_> = args.iter().filter_map(|arg| arg.ident()).collect();
    let types = args.iter().map(|arg| &arg.ty);
    let docs = &method.docs;
    let docs = (!docs.is_empty()).then(|| quote!(#[doc = #docs]));
    // Unmet bounds are reported on the user's types rather than on `#[rpc]`:
    // on an argument's type (`Serialize`) or on the return type
    // (`Deserialize`, being a `Result`).
    let pushes = args.iter().zip(&idents).map(|(arg, ident)| {
        let value = relocate(quote!(&#ident), &arg.ty);
        let push = quote!(#krate::client::ParamsBuilder::push);
        let push = call_over(push, quote!(&mut #params, #value), &arg.ty);
        quote!(#push;)
    });
    let build_params = match (idents.as_slice(), args.as_slice()) {
        ([ident], [arg]) if method.binds_whole_params() => {
            let value = relocate(quote!(&#ident), &arg.ty);
            let whole = quote!(#krate::__private::whole_params);
            call_over(whole, quote!(#info, #value), &arg.ty)
        }
        _ => quote! {{
            let mut #params = #krate::__private::params(#info);
            #(#pushes)*
            #params.finish()
        }},
    };
    let (output, send) = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) => {
            let ok = match result_ok_type(ty) {
                Some(ok) => quote!(#ok),
                None => quote!(<#ty as #krate::__private::ResultType>::Ok),
            };
            let output = quote!(::core::result::Result<#ok, #krate::ClientError>);
            let send = quote!(#krate::__private::request(&self.transport, #info, #params));
            (relocate(output, ty), relocate(send, ty))
        }
        _ => (
            quote!(::core::result::Result<(), #krate::ClientError>),
            quote!(#krate::__private::notify(&self.transport, #info, #params)),
        ),
    };
    quote! {
        #docs
        // The trait method takes these arguments already; the client only mirrors it.
        #[allow(clippy::too_many_arguments)]
        pub async fn #fn_ident(&self, #(#idents: #types),*) -> #output {
            let #info = &#service::<()>::INFO.methods()[#index];
            let #params = #build_params;
            #send.await
        }
    }
}
