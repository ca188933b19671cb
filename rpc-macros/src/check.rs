//! Everything that makes an `#[rpc]` trait invalid, each reported where it is.

use std::collections::HashMap;

use syn::{FnArg, GenericArgument, PathArguments, Type};

use crate::ast::{Api, Method};
use crate::attr::Kind;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, api: &Api) {
    check_generics(cx, api);
    check_names(cx, api);
    for method in &api.methods {
        check_rust_name(cx, method);
        check_signature(cx, method);
        check_args(cx, method);
        check_output(cx, method);
    }
}

fn check_generics(cx: &Ctxt, api: &Api) {
    let generics = &api.item.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        cx.error_spanned_by(
            generics,
            "generic #[rpc] traits are not supported: the dispatcher and the client need concrete param and result types",
        );
    }
}

/// Names and aliases are unique, and none is reserved.
fn check_names(cx: &Ctxt, api: &Api) {
    let mut seen: HashMap<String, &syn::Ident> = HashMap::new();
    for method in &api.methods {
        let aliases = method.aliases().iter().map(|lit| (lit.value(), lit.span()));
        for (name, span) in std::iter::once((method.name.clone(), method.name_span)).chain(aliases)
        {
            if name.starts_with("rpc.") {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("`{name}`: method names that start with `rpc.` are reserved for JSON-RPC extensions such as `rpc.discover`"),
                ));
            }
            if let Some(first) = seen.insert(name.clone(), method.ident()) {
                cx.syn_error(syn::Error::new(
                    span,
                    format!("the RPC name `{name}` is already used by `{first}`; each name and alias must be unique"),
                ));
            }
        }
    }
}

/// Names the generated client and trait already use for themselves.
const GENERATED_NAMES: &[&str] = &["new", "transport", "into_transport", "into_service"];

fn check_rust_name(cx: &Ctxt, method: &Method) {
    let ident = method.ident();
    if GENERATED_NAMES.iter().any(|name| ident == name) {
        cx.error_spanned_by(
            ident,
            format!(
                "`{ident}` clashes with a method that #[rpc] generates; rename the Rust method and keep the wire name with #[method(name = \"{ident}\")]"
            ),
        );
    }
}

fn check_signature(cx: &Ctxt, method: &Method) {
    let sig = &method.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(sig.fn_token, "RPC methods must be `async fn`");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "generic RPC methods are not supported: params and results need concrete types",
        );
    }
    match sig.inputs.first() {
        Some(FnArg::Receiver(receiver)) if receiver.reference.is_some() && receiver.mutability.is_none() => {}
        Some(FnArg::Receiver(receiver)) if receiver.mutability.is_some() => cx.error_spanned_by(
            receiver,
            "RPC methods take `&self`, not `&mut self`: calls run concurrently; keep mutable state behind a lock or an atomic",
        ),
        Some(FnArg::Receiver(receiver)) => {
            cx.error_spanned_by(receiver, "RPC methods take `&self`: the server keeps serving after each call")
        }
        _ => cx.error_spanned_by(&sig.ident, "RPC methods take `&self` as their first argument"),
    }
}

fn check_args(cx: &Ctxt, method: &Method) {
    for arg in &method.args {
        if arg.ident().is_none() {
            cx.error_spanned_by(
                &arg.pat,
                "RPC arguments must be plain names: each name is the param's name in named params; destructure in the body instead",
            );
        }
        for attr in arg.whole.iter().chain(&arg.context) {
            if !matches!(attr.meta, syn::Meta::Path(_)) {
                cx.error_spanned_by(attr, "this attribute takes no arguments");
            }
        }
        match (&arg.whole, &arg.context) {
            (Some(_), Some(context)) => cx.error_spanned_by(
                context,
                "an argument is either #[params] or #[context], not both",
            ),
            (_, Some(_)) => check_context_type(cx, &arg.ty),
            (_, None) => check_arg_type(cx, &arg.ty),
        }
    }
    let contexts: Vec<_> = method
        .args
        .iter()
        .filter_map(|arg| arg.context.as_ref())
        .collect();
    for extra in contexts.iter().skip(1) {
        cx.error_spanned_by(extra, "a method takes at most one #[context] argument");
    }
    if method.binds_whole_params() && method.params().count() > 1 {
        for attr in method.args.iter().filter_map(|arg| arg.whole.as_ref()) {
            cx.error_spanned_by(
                attr,
                "#[params] binds the whole `params` value to one argument, so the method can have no other params (a #[context] argument is allowed)",
            );
        }
    }
}

/// The context is lent to the handler for the duration of the call.
fn check_context_type(cx: &Ctxt, ty: &Type) {
    if !matches!(ty, Type::Reference(reference) if reference.mutability.is_none()) {
        cx.error_spanned_by(
            ty,
            "a #[context] argument is a shared reference: `cx: &Context`",
        );
    }
}

fn check_arg_type(cx: &Ctxt, ty: &Type) {
    match ty {
        Type::Reference(reference) => cx.error_spanned_by(
            reference,
            "RPC arguments must be owned types, decoded from the request: use `String` for `&str`, `Vec<T>` for `&[T]`",
        ),
        Type::ImplTrait(_) => cx.error_spanned_by(ty, "RPC arguments need concrete types, not `impl Trait`"),
        _ => {}
    }
}

fn check_output(cx: &Ctxt, method: &Method) {
    match (method.kind(), method.output()) {
        (Kind::Notification, Some(ty)) if !is_unit(ty) => cx.error_spanned_by(
            ty,
            "a #[notification] is never answered, so it cannot return a value; remove the return type or make it a #[method]",
        ),
        (Kind::Method, None) => cx.syn_error(syn::Error::new(
            method.sig.paren_token.span.close(),
            "a #[method] must return `Result<T, E>` (for example `RpcResult<T>`); a fire-and-forget call is a #[notification]",
        )),
        (Kind::Method, Some(ty)) if !is_result(ty) => cx.error_spanned_by(
            ty,
            "a #[method] must return `Result<T, E>` (for example `RpcResult<T>`) so that a failure can be answered with an error object",
        ),
        _ => {}
    }
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty())
}

/// Whether `ty` names a `Result`: its last path segment ends in `Result`
/// (`Result`, `RpcResult`, `io::Result`, ...).
fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|seg| seg.ident.to_string().ends_with("Result")),
        _ => false,
    }
}

/// `T` of `Result<T, E>` (or of any `...Result<T, ...>`) as written, when the
/// type spells it out; a type alias without arguments does not.
pub fn result_ok_type(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(ok) => Some(ok),
        _ => None,
    }
}
