//! The client side: `FooClient<T>`, one async method per RPC method over any transport.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Type;

use super::{
    Names, assert_bound, call_over, ends, place_all, private_ident, relocate, result_check,
    result_ok, type_value,
};
use crate::ast::{Api, Method, ParamsShape};
use crate::attr::Kind;

pub fn render(api: &Api, names: &Names) -> TokenStream {
    let Names {
        krate,
        client,
        batch,
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
    // A streaming method cannot be called in a batch.
    let batch_methods = api
        .methods
        .iter()
        .enumerate()
        .filter(|(_, method)| method.attr.stream.is_none())
        .map(|(index, method)| batch_method(method, index, names));
    let batch_doc = format!(
        "A batch of calls of [`{trait_ident}`], sent as one message when awaited.\n\n\
         Each method adds a call: a request gives back a `BatchCall` whose result is read \
         from the `BatchReplies` with `get`, typed as the client method returns it; a \
         notification gives back nothing. Awaiting the batch fails as a whole only when it \
         could not be sent or the server refused it whole (a batch longer than the \
         server's limit, say)."
    );
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

            /// Starts a batch: its methods add calls, and awaiting it sends
            /// them as one message.
            pub fn batch(&self) -> #batch<'_, #t> {
                #batch {
                    state: #krate::__private::BatchState::new(&self.transport),
                }
            }
        }

        #[doc = #batch_doc]
        #vis struct #batch<'batch, #t> {
            state: #krate::__private::BatchState<'batch, #t>,
        }

        impl<'batch, #t: #krate::client::Transport> #batch<'batch, #t> {
            #(#batch_methods)*
        }

        impl<'batch, #t: #krate::client::Transport> ::core::future::IntoFuture for #batch<'batch, #t> {
            type Output = ::core::result::Result<#krate::client::BatchReplies, #krate::ClientError>;
            type IntoFuture = #krate::__private::BatchFuture<'batch>;

            fn into_future(self) -> Self::IntoFuture {
                self.state.send()
            }
        }
    }
}

/// The default of clippy's `too-many-arguments-threshold`.
const CLIPPY_MAX_ARGUMENTS: usize = 7;

/// What a client method and its batch counterpart share: the signature's
/// arguments, the assertions on their types, and the statements that bind
/// the method's info and its encoded params, under the names `info` and
/// `params`.
struct Call {
    docs: Option<TokenStream>,
    allow: Option<TokenStream>,
    args: TokenStream,
    checks: TokenStream,
    bind: TokenStream,
    info: syn::Ident,
    params: syn::Ident,
}

impl Call {
    /// The method `signature` (up to its name) taking `receiver` and the
    /// arguments, returning `output`, and running `body` once the
    /// arguments are checked and the params bound.
    fn method(
        self,
        signature: TokenStream,
        receiver: TokenStream,
        output: TokenStream,
        body: TokenStream,
    ) -> TokenStream {
        let Call {
            docs,
            allow,
            args,
            checks,
            bind,
            ..
        } = self;
        quote! {
            #docs
            #allow
            #signature(#receiver, #args) -> #output {
                #checks
                #bind
                #body
            }
        }
    }
}

fn call(method: &Method, index: usize, names: &Names) -> Call {
    let Names { krate, service, .. } = names;
    let (info, params) = (private_ident("method"), private_ident("params"));
    let args: Vec<_> = method.params().collect();
    let idents: Vec<_> = args.iter().filter_map(|arg| arg.ident()).collect();
    let types = args.iter().map(|arg| &arg.ty);
    let docs = &method.docs;
    let docs = (!docs.is_empty()).then(|| quote!(#[doc = #docs]));
    // Unmet bounds are reported on the user's types rather than on `#[rpc]`,
    // once: each type is asserted over itself first, and every use of it is
    // placed over it too (see `assert_bound`).
    let checks = args
        .iter()
        .map(|arg| assert_bound(krate, "param", &arg.ty, &arg.ty));
    let build_params = match method.params_shape() {
        ParamsShape::Whole(arg) => {
            let ident = arg.ident();
            let value = relocate(quote!(&#ident), &arg.ty);
            let whole = quote!(#krate::__private::whole_params);
            let param_type = type_value(krate, &arg.ty, &arg.ty);
            call_over(whole, quote!(#info, #param_type, #value), &arg.ty)
        }
        ParamsShape::List(list) => {
            let pushes = list.iter().filter_map(|arg| {
                let ident = arg.ident()?;
                let value = relocate(quote!(&#ident), &arg.ty);
                let push = quote!(#krate::client::ParamsBuilder::push);
                let push = call_over(push, quote!(&mut #params, #value), &arg.ty);
                Some(quote!(#push;))
            });
            quote! {{
                let mut #params = #krate::__private::params(#info);
                #(#pushes)*
                #params.finish()
            }}
        }
    };
    // The client method mirrors the trait method, whose arguments the user
    // chose: where clippy would flag it (`self` counts), the trait method is
    // flagged already.
    let allow = (idents.len() + 1 > CLIPPY_MAX_ARGUMENTS)
        .then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let result_check = result_check(method, krate);
    Call {
        docs,
        allow,
        args: quote!(#(#idents: #types),*),
        checks: quote!(#(#checks)* #result_check),
        bind: quote! {
            let #info = &#service::<()>::INFO.methods()[#index];
            let #params = #build_params;
        },
        info,
        params,
    }
}

fn client_method(method: &Method, index: usize, names: &Names) -> TokenStream {
    let krate = &names.krate;
    let mut call = call(method, index, names);
    let (info, params) = (&call.info, &call.params);
    let (output, send, error_check) = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) if method.attr.stream.is_some() => stream_call(method, ty, names),
        (Kind::Method, Some(ty)) => {
            let ok = result_ok(ty, krate);
            // `.await` too is placed over the return type, on its last
            // token: the result's type is checked where it is awaited.
            let send = relocate(
                quote!(#krate::__private::request(&self.transport, #info, #params)),
                ty,
            );
            let awaited = place_all(quote!(.await), ends(ty).1);
            let send = quote!(#send #awaited);
            // The error type picks the client's error: `ClientError` for an
            // `ErrorObject`, `CallError<E>` for a derived `RpcError`. The
            // conversion spans the return type, as the assertion on it does,
            // so that an unmet bound is reported once.
            let (client_err, convert, error_type, error_check) =
                match crate::ast::result_err_type(ty) {
                    Some(err) => (
                        quote!(<#err as #krate::__private::ClientErrorOf>::Error),
                        quote!(#krate::__private::client_result),
                        type_value(krate, err, ty),
                        Some(assert_bound(krate, "client_error", err, ty)),
                    ),
                    None => (
                        quote!(<#ty as #krate::__private::ResultType>::ClientError),
                        quote!(#krate::__private::alias_client_result),
                        type_value(krate, ty, ty),
                        None,
                    ),
                };
            let output = quote!(::core::result::Result<#ok, #client_err>);
            let send = call_over(convert, quote!(#error_type, #send), ty);
            (relocate(output, ty), send, error_check)
        }
        _ => (
            quote!(::core::result::Result<(), #krate::ClientError>),
            quote!(#krate::__private::notify(&self.transport, #info, #params).await),
            None,
        ),
    };
    call.checks.extend(error_check);
    let fn_ident = method.ident();
    call.method(quote!(pub async fn #fn_ident), quote!(&self), output, send)
}

/// What a client method of the streaming `method`, returning `ty`, returns
/// and how it calls: as a unary method does, the call's error and each
/// item's error are the client's error for their types (`CallError<E>`
/// for an `E` deriving `RpcError`, `ClientError` for an `ErrorObject`).
fn stream_call(
    method: &Method,
    ty: &Type,
    names: &Names,
) -> (TokenStream, TokenStream, Option<TokenStream>) {
    let krate = &names.krate;
    let (info, params) = (private_ident("method"), private_ident("params"));
    let (item, items) = (method.stream_item(), method.stream_item_result());
    // The call's own `Result`, its `impl Stream` put aside: it cannot be
    // named, and the client's error depends only on the error type.
    let call = unit_ok(ty);
    let result_type = quote!(#krate::__private::ResultType);
    let output = quote! {
        ::core::result::Result<
            #krate::client::Subscription<#item, <#items as #result_type>::ClientError>,
            <#call as #result_type>::ClientError,
        >
    };
    // Every use of the error types is placed over the return type, where
    // their assertions are, so that a type without `RpcError` is reported
    // once (see `assert_bound`).
    let (call_type, items_type) = (type_value(krate, &call, ty), type_value(krate, &items, ty));
    let send = relocate(
        quote!(#krate::__private::subscribe(&self.transport, #info, #params)),
        ty,
    );
    let awaited = place_all(quote!(.await), ends(ty).1);
    let send = call_over(
        quote!(#krate::__private::typed_stream),
        quote!(#call_type, #items_type, #send #awaited),
        ty,
    );
    // A spelled-out error type is asserted over the return type, as a
    // unary method's is, so that one without `RpcError` gets one error.
    let checks = [
        crate::ast::result_err_type(ty),
        items.and_then(crate::ast::result_err_type),
    ]
    .into_iter()
    .flatten()
    .map(|err| assert_bound(krate, "client_error", err, ty));
    (relocate(output, ty), send, Some(quote!(#(#checks)*)))
}

/// `ty`, a `...Result<impl Stream<...>, ...>`, with `()` as its first
/// argument.
fn unit_ok(ty: &Type) -> Type {
    let mut call = ty.clone();
    if let Type::Path(path) = &mut call
        && let Some(last) = path.path.segments.last_mut()
        && let syn::PathArguments::AngleBracketed(args) = &mut last.arguments
        && let Some(syn::GenericArgument::Type(ok)) = args.args.first_mut()
    {
        *ok = syn::parse_quote!(());
    }
    call
}

/// The method of the client's batch that adds a call of `method`.
fn batch_method(method: &Method, index: usize, names: &Names) -> TokenStream {
    let krate = &names.krate;
    let call = call(method, index, names);
    let (info, params) = (&call.info, &call.params);
    let (output, add) = match (method.kind(), method.output()) {
        (Kind::Method, Some(ty)) => {
            let result_type = type_value(krate, ty, ty);
            let add = call_over(
                quote!(#krate::__private::BatchState::request),
                quote!(&mut self.state, #info, #result_type, #params),
                ty,
            );
            (relocate(quote!(#krate::client::BatchCall<#ty>), ty), add)
        }
        _ => (quote!(()), quote!(self.state.notify(#info, #params))),
    };
    let fn_ident = method.ident();
    call.method(quote!(pub fn #fn_ident), quote!(&mut self), output, add)
}
