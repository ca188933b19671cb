//! Rendering the conversions: `From<E> for ErrorObject` (the server sends
//! it), `TryFrom<ErrorObject> for E` (the client reads it back), the
//! client's typed error, `CallError<E>`, and `Display` and `Error`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Fields, Ident};

use super::ast::{ErrorEnum, ErrorVariant};
use crate::expand::{assert_bound, call_over, private_ident, type_value};

pub fn render(error: &ErrorEnum, skipped: &[bool]) -> TokenStream {
    let ErrorEnum { ident, krate, .. } = error;
    // Unmet bounds are reported on the field types rather than on the
    // derive, once (see `assert_bound`): each conversion asserts them first.
    let checks: Vec<_> = error
        .variants
        .iter()
        .flat_map(|variant| variant.fields.iter())
        .map(|field| assert_bound(krate, "error_field", &field.ty, &field.ty))
        .collect();
    let value = private_ident("error");
    let data = private_ident("data");
    let arms = Arms {
        krate,
        ident,
        data: &data,
    };
    let to_object = error.variants.iter().map(|v| to_object(&arms, v));
    let from_object = error
        .variants
        .iter()
        .zip(skipped)
        .filter(|(_, skipped)| !**skipped)
        .map(|(v, _)| from_object(&arms, v));
    let display = error.display.then(|| display(error));
    let infos = error
        .variants
        .iter()
        .zip(skipped)
        .filter(|(_, skipped)| !**skipped)
        .map(|(v, _)| error_info(krate, v));
    quote! {
        impl ::core::convert::From<#ident> for #krate::ErrorObject {
            fn from(#value: #ident) -> Self {
                #(#checks)*
                match #value {
                    #(#to_object)*
                }
            }
        }

        impl ::core::convert::TryFrom<#krate::ErrorObject> for #ident {
            type Error = #krate::client::UnknownError;

            fn try_from(
                #value: #krate::ErrorObject,
            ) -> ::core::result::Result<Self, #krate::client::UnknownError> {
                fn decode(
                    code: i64,
                    #data: &#krate::__private::DataReader,
                ) -> ::core::option::Option<#ident> {
                    #(#checks)*
                    match code {
                        #(#from_object)*
                        _ => ::core::option::Option::None,
                    }
                }
                let #data = #krate::__private::DataReader::new(&#value);
                match decode(#value.code(), &#data) {
                    ::core::option::Option::Some(known) => ::core::result::Result::Ok(known),
                    ::core::option::Option::None => {
                        ::core::result::Result::Err(#krate::client::UnknownError::new(#value))
                    }
                }
            }
        }

        impl #krate::ErrorList for #ident {
            const ERRORS: &'static [#krate::ErrorInfo] = &[#(#infos),*];
        }

        impl #krate::__private::ClientErrorOf for #ident {
            type Error = #krate::client::CallError<#ident>;

            fn from_client_error(err: #krate::ClientError) -> Self::Error {
                ::core::convert::From::from(err)
            }
        }

        #display
    }
}

/// `Display` writes the variant's message, the one its error object
/// carries; `Error` has no source.
fn display(error: &ErrorEnum) -> TokenStream {
    let ident = error.ident;
    let arms = error.variants.iter().map(|variant| {
        let (name, message) = (variant.ident, variant.message());
        // `{ .. }` matches a variant of any shape without binding its fields.
        quote!(#ident::#name { .. } => #message,)
    });
    let formatter = private_ident("formatter");
    quote! {
        impl ::core::fmt::Display for #ident {
            fn fmt(&self, #formatter: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #formatter.write_str(match *self {
                    #(#arms)*
                })
            }
        }

        impl ::std::error::Error for #ident {}
    }
}

/// The variant's code, message and the schema of its `data`, for documents.
fn error_info(krate: &syn::Path, variant: &ErrorVariant) -> TokenStream {
    let code = code_of(variant);
    let message = variant.message();
    let info = quote!(#krate::ErrorInfo::new(#code, #message));
    match variant.fields {
        Fields::Unit => info,
        Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
            let ty = &fields.unnamed[0].ty;
            quote!(#krate::__with_schema!(data #info, #ty))
        }
        Fields::Unnamed(fields) => {
            let types = fields.unnamed.iter().map(|field| &field.ty);
            quote!(#krate::__with_schema!(elements #info, [#(#types),*]))
        }
        Fields::Named(fields) => {
            let members = fields.named.iter().filter_map(|field| {
                let key = field.ident.as_ref()?.to_string();
                let ty = &field.ty;
                Some(quote!(#key: #ty))
            });
            quote!(#krate::__with_schema!(fields #info, { #(#members),* }))
        }
    }
}

/// What every match arm of the conversions names: the runtime's path, the
/// error type, and the binding of the error's `data`.
#[derive(Clone, Copy)]
struct Arms<'a> {
    krate: &'a syn::Path,
    ident: &'a Ident,
    data: &'a Ident,
}

/// The variant's error code (`0` when it has none, which the checks
/// report as an error).
fn code_of(variant: &ErrorVariant) -> i64 {
    variant.code.as_ref().map_or(0, |(code, _)| *code)
}

/// The bindings of a variant's fields, `field0`, `field1`, ...
fn bindings(fields: &Fields) -> Vec<Ident> {
    (0..fields.len())
        .map(|i| private_ident(&format!("field{i}")))
        .collect()
}

/// The match arm that turns the variant into its error object.
fn to_object(arms: &Arms, variant: &ErrorVariant) -> TokenStream {
    let Arms { krate, ident, data } = *arms;
    let name = variant.ident;
    let code = code_of(variant);
    let message = variant.message();
    let bound = bindings(variant.fields);
    let helpers = quote!(#krate::__private);
    match variant.fields {
        Fields::Unit => quote! {
            #ident::#name => #helpers::error_object(#code, #message),
        },
        Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
            let ty = &fields.unnamed[0].ty;
            let field_type = type_value(krate, ty, ty);
            let binding = &bound[0];
            let call = call_over(
                quote!(#helpers::error_with_data),
                quote!(#code, #message, #field_type, &#binding),
                ty,
            );
            quote!(#ident::#name(#binding) => #call,)
        }
        Fields::Unnamed(fields) => {
            let writes = fields.unnamed.iter().zip(&bound).map(|(field, binding)| {
                let field_type = type_value(krate, &field.ty, &field.ty);
                let call = call_over(
                    quote!(#helpers::DataWriter::element),
                    quote!(&mut #data, #field_type, &#binding),
                    &field.ty,
                );
                quote!(#call;)
            });
            quote! {
                #ident::#name(#(#bound),*) => {
                    let mut #data = #helpers::data_array();
                    #(#writes)*
                    #data.into_error(#code, #message)
                }
            }
        }
        Fields::Named(fields) => {
            let names: Vec<_> = fields
                .named
                .iter()
                .filter_map(|f| f.ident.as_ref())
                .collect();
            let writes = fields.named.iter().zip(&bound).map(|(field, binding)| {
                let key = field
                    .ident
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                let field_type = type_value(krate, &field.ty, &field.ty);
                let call = call_over(
                    quote!(#helpers::DataWriter::field),
                    quote!(&mut #data, #key, #field_type, &#binding),
                    &field.ty,
                );
                quote!(#call;)
            });
            quote! {
                #ident::#name { #(#names: #bound),* } => {
                    let mut #data = #helpers::data_object();
                    #(#writes)*
                    #data.into_error(#code, #message)
                }
            }
        }
    }
}

/// The match arm that reads the variant back from its code and `data`.
fn from_object(arms: &Arms, variant: &ErrorVariant) -> TokenStream {
    let Arms { krate, ident, data } = *arms;
    let name = variant.ident;
    let code = code_of(variant);
    let helpers = quote!(#krate::__private);
    let some = quote!(::core::option::Option::Some);
    let read = |method: TokenStream, key: TokenStream, ty: &syn::Type| {
        let field_type = type_value(krate, ty, ty);
        let call = call_over(method, quote!(#data, #key #field_type), ty);
        quote!(#call?)
    };
    let value = match variant.fields {
        Fields::Unit => quote!(#ident::#name),
        Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
            let whole = read(
                quote!(#helpers::DataReader::whole),
                quote!(),
                &fields.unnamed[0].ty,
            );
            quote!(#ident::#name(#whole))
        }
        Fields::Unnamed(fields) => {
            let elements = fields.unnamed.iter().enumerate().map(|(index, field)| {
                read(
                    quote!(#helpers::DataReader::element),
                    quote!(#index,),
                    &field.ty,
                )
            });
            quote!(#ident::#name(#(#elements),*))
        }
        Fields::Named(fields) => {
            let members = fields.named.iter().filter_map(|field| {
                let field_ident = field.ident.as_ref()?;
                let key = field_ident.to_string();
                let member = read(
                    quote!(#helpers::DataReader::field),
                    quote!(#key,),
                    &field.ty,
                );
                Some(quote!(#field_ident: #member))
            });
            quote!(#ident::#name { #(#members),* })
        }
    };
    quote!(#code => #some(#value),)
}
