//! The static description of the API: `FooService::INFO`.
//!
//! Each param and result type goes through the runtime's `__with_schema!`,
//! which adds the function writing its JSON Schema when the runtime has its
//! `schema` feature and nothing otherwise: a `cfg` here would test the
//! features of the user's crate, not the runtime's, and the default build
//! would have to know `schemars`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Names, type_string};
use crate::ast::{Api, Arg, Method, ParamsShape};
use crate::attr::{ExampleAttr, Kind, ParamStyle};

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names { krate, service, .. } = names;
    let vis = &api.item.vis;
    let trait_name = api.item.ident.to_string();
    let methods = api.methods.iter().map(|method| method_info(method, krate));
    let unsubscribes = unsubscribe_names(api).into_iter().map(|name| {
        let docs = "Ends a subscription: `true` if it was live on this connection; no item of it arrives after the answer.";
        let subscription = quote! {
            #krate::__with_schema!(param #krate::ParamInfo::new("subscription", "String"), ::std::string::String)
        };
        let info = quote! {
            #krate::MethodInfo::method(#name).params(&[#subscription]).result("bool").docs(#docs)
        };
        quote!(#krate::__with_schema!(result #info, bool))
    });
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
                &#krate::ServiceInfo::new(#trait_name, &[#(#methods,)* #(#unsubscribes),*]) #docs;
        }
    }
}

/// The unsubscribe methods of the streaming methods, each once, in order:
/// they follow the trait's methods in `INFO`.
pub fn unsubscribe_names(api: &Api) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, unsubscribe) in api.methods.iter().filter_map(Method::stream_names) {
        if !names.contains(&unsubscribe) {
            names.push(unsubscribe);
        }
    }
    names
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
    let result_type = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) => Some(ty),
        _ => None,
    };
    let result = result_type.map(|ty| {
        let name = type_string(method.answer_type().unwrap_or(ty));
        quote!(.result(#name))
    });
    let stream = method.stream_names().map(|(notification, unsubscribe)| {
        quote!(.stream(#krate::StreamInfo::new(#notification, #unsubscribe)))
    });
    let docs = &method.docs;
    let docs = (!docs.is_empty()).then(|| quote!(.docs(#docs)));
    let style = (method.param_style == ParamStyle::Named)
        .then(|| quote!(.param_style(#krate::ParamStyle::Named)));
    let lenient = method
        .allow_unknown_params
        .then(|| quote!(.allow_unknown_params()));
    let idempotent = method.attr.idempotent.then(|| quote!(.idempotent()));
    let deprecated = method.deprecated.then(|| quote!(.deprecated()));
    let errors = &method.attr.errors;
    let errors = (!errors.is_empty()).then(|| {
        let errors = errors.iter().map(|error| {
            let (code, message) = (error.code, &error.message);
            quote!(#krate::ErrorInfo::new(#code, #message))
        });
        quote!(.errors(&[#(#errors),*]))
    });
    let examples = &method.attr.examples;
    let examples = (!examples.is_empty()).then(|| {
        let examples = examples
            .iter()
            .enumerate()
            .map(|(index, example)| example_info(method, index, example, krate));
        quote!(.examples(&[#(#examples),*]))
    });
    let info = quote! {
        #krate::MethodInfo::#constructor(#name) #params #aliases #result #docs #style #lenient
            #idempotent #deprecated #errors #examples #stream
    };
    // Through an alias, the `Ok` type is found by the runtime: naming it
    // here would report a return type that is no `Result` once more.
    match result_type.map(|ty| (ty, method.answer_type())) {
        Some((_, Some(ok))) => quote!(#krate::__with_schema!(result #info, #ok)),
        Some((ty, None)) => quote!(#krate::__with_schema!(returns #info, #ty)),
        None => info,
    }
}

fn example_info(
    method: &Method,
    index: usize,
    example: &ExampleAttr,
    krate: &syn::Path,
) -> TokenStream {
    let name = example
        .name
        .clone()
        .unwrap_or_else(|| format!("{} example {}", method.name, index + 1));
    let params = &example.params;
    let result = example
        .result
        .as_ref()
        .map(|result| quote!(.result(#result)));
    quote!(#krate::ExampleInfo::new(#name, #params) #result)
}

fn param_info(arg: &Arg, krate: &syn::Path) -> TokenStream {
    let name = &arg.name;
    let ty = type_string(&arg.ty);
    let optional = arg.is_optional().then(|| quote!(.optional()));
    let docs = (!arg.docs.is_empty()).then(|| {
        let docs = &arg.docs;
        quote!(.docs(#docs))
    });
    let rust_ty = &arg.ty;
    quote!(#krate::__with_schema!(param #krate::ParamInfo::new(#name, #ty) #optional #docs, #rust_ty))
}
