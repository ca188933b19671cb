//! The static description of the API: `FooService::INFO`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::{Names, type_string};
use crate::ast::{Api, Arg, Method, ParamsShape, result_ok_type};
use crate::attr::{Kind, ParamStyle};

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names { krate, service, .. } = names;
    let vis = &api.item.vis;
    let trait_name = api.item.ident.to_string();
    let methods = api.methods.iter().map(|method| method_info(method, krate));
    let docs = (!api.docs.is_empty()).then(|| {
        let docs = &api.docs;
        quote!(.docs(#docs))
    });
    let doc = format!(
        "The static description of the [`{trait_name}`] API: each method's name, params, result type and docs."
    );
    quote! {
        impl #service<()> {
            #[doc = #doc]
            #vis const INFO: &'static #krate::ServiceInfo =
                &#krate::ServiceInfo::new(#trait_name, &[#(#methods),*]) #docs;
        }
    }
}

fn method_info(method: &Method, krate: &syn::Path) -> TokenStream {
    let name = &method.name;
    let constructor = match method.kind() {
        Kind::Method => quote!(method),
        Kind::Notification => quote!(notification),
    };
    let params = match method.params_shape() {
        ParamsShape::Whole(whole) => {
            let param = param_info(whole, krate);
            Some(quote!(.whole_params(&#param)))
        }
        ParamsShape::List(params) if params.is_empty() => None,
        ParamsShape::List(params) => {
            let params = params.iter().map(|arg| param_info(arg, krate));
            Some(quote!(.params(&[#(#params),*])))
        }
    };
    let aliases = method.aliases();
    let aliases = (!aliases.is_empty()).then(|| quote!(.aliases(&[#(#aliases),*])));
    let result = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) => {
            let ty = type_string(result_ok_type(ty).unwrap_or(ty));
            Some(quote!(.result(#ty)))
        }
        _ => None,
    };
    let docs = &method.docs;
    let docs = (!docs.is_empty()).then(|| quote!(.docs(#docs)));
    let style = (method.param_style == ParamStyle::Named)
        .then(|| quote!(.param_style(#krate::ParamStyle::Named)));
    let lenient = method
        .allow_unknown_params
        .then(|| quote!(.allow_unknown_params()));
    let idempotent = method.attr.idempotent.then(|| quote!(.idempotent()));
    quote! {
        #krate::MethodInfo::#constructor(#name) #params #aliases #result #docs #style #lenient #idempotent
    }
}

fn param_info(arg: &Arg, krate: &syn::Path) -> TokenStream {
    // `r#type` is called `type` on the wire.
    let name = arg
        .ident()
        .map(|ident| ident.unraw().to_string())
        .unwrap_or_default();
    let ty = type_string(&arg.ty);
    let optional = arg.is_optional().then(|| quote!(.optional()));
    quote!(#krate::ParamInfo::new(#name, #ty) #optional)
}
