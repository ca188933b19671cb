//! Everything that makes an `#[rpc]` trait invalid, each reported where it is.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use quote::ToTokens;
use syn::{FnArg, Type};

use crate::ast::{Api, Arg, Method, ParamsShape};
use crate::attr::Kind;
use crate::ctxt::Ctxt;

/// What the checks leave standing: whether anything beyond the trait can be
/// generated, and which methods must be left out of the service and client.
pub struct Verdict {
    /// The trait as a whole cannot be served (it is generic).
    pub fatal: bool,
    /// One flag per method: `true` if the method has an error of its own.
    pub rejected: Vec<bool>,
}

pub fn check(cx: &Ctxt, api: &Api) -> Verdict {
    let before = cx.error_count();
    check_generics(cx, api);
    let fatal = cx.error_count() > before;
    let mut rejected = check_names(cx, api);
    for (method, rejected) in api.methods.iter().zip(&mut rejected) {
        let before = cx.error_count();
        check_rust_name(cx, method);
        check_signature(cx, method);
        check_args(cx, method);
        check_output(cx, method);
        check_stream(cx, method);
        *rejected |= cx.error_count() > before;
    }
    Verdict { fatal, rejected }
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

/// Names and aliases are unique, and none is reserved; flags the methods
/// with a bad name.
fn check_names(cx: &Ctxt, api: &Api) -> Vec<bool> {
    let namespace_reserved = check_namespace(cx, api);
    // Each name seen so far, with the method that has it and whether as an alias.
    let mut seen: HashMap<String, (&syn::Ident, bool)> = HashMap::new();
    let mut rejected = vec![false; api.methods.len()];
    for (method, rejected) in api.methods.iter().zip(&mut rejected) {
        let before = cx.error_count();
        let name = (method.name.clone(), method.name_span, false);
        let aliases = method
            .aliases()
            .iter()
            .map(|lit| (lit.value(), lit.span(), true));
        for (name, span, is_alias) in std::iter::once(name).chain(aliases) {
            // Aliases are not namespaced, so a reserved namespace (reported
            // once, on the namespace) leaves them to be checked here.
            if name.starts_with("rpc.") && (is_alias || !namespace_reserved) {
                let what = if is_alias { "alias" } else { "RPC name" };
                cx.syn_error(syn::Error::new(
                    span,
                    format!("the {what} `{name}` is reserved: names that start with `rpc.` belong to JSON-RPC extensions such as `rpc.discover`; choose another name"),
                ));
            }
            match seen.entry(name) {
                Entry::Occupied(entry) => {
                    let (name, (first, first_is_alias)) = (entry.key(), entry.get());
                    let role = if *first_is_alias {
                        "an alias"
                    } else {
                        "the name"
                    };
                    cx.syn_error(syn::Error::new(
                        span,
                        format!("the RPC name `{name}` is already {role} of `fn {first}`; each name and alias in the trait must be unique"),
                    ));
                }
                Entry::Vacant(entry) => {
                    entry.insert((method.ident(), is_alias));
                }
            }
        }
        *rejected = cx.error_count() > before;
    }
    rejected
}

/// A namespace that makes every name start with `rpc.`; whether there is one.
fn check_namespace(cx: &Ctxt, api: &Api) -> bool {
    let Some(namespace) = &api.attrs.namespace else {
        return false;
    };
    let separator = &api.attrs.separator;
    let prefix = format!("{}{separator}", namespace.value());
    let reserved = prefix.starts_with("rpc.");
    if reserved {
        cx.error_spanned_by(
            namespace,
            format!("with this namespace every method name starts with `{prefix}`, and names that start with `rpc.` belong to JSON-RPC extensions such as `rpc.discover`; choose another namespace"),
        );
    }
    reserved
}

/// Names the generated client and trait already use for themselves.
const GENERATED_NAMES: &[&str] = &[
    "new",
    "transport",
    "into_transport",
    "into_service",
    "batch",
];

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
    let ident = &sig.ident;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(
            sig.fn_token,
            format!("RPC methods must be `async fn`: write `async fn {ident}(...)`"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &sig.generics,
            "generic RPC methods are not supported: params and results need concrete types",
        );
    }
    // The receiver's type covers both `&self` and `self: &Self`.
    match sig.inputs.first() {
        Some(FnArg::Receiver(receiver)) => match &*receiver.ty {
            Type::Reference(reference) if reference.mutability.is_none() => {}
            Type::Reference(_) => cx.error_spanned_by(
                receiver,
                "RPC methods take `&self`, not `&mut self`: calls run concurrently; keep mutable state behind a lock or an atomic",
            ),
            _ => cx.error_spanned_by(
                receiver,
                "RPC methods take `&self`, not `self` by value: the server keeps serving after each call",
            ),
        },
        _ => cx.error_spanned_by(
            ident,
            format!("RPC methods take `&self` as their first argument: write `async fn {ident}(&self, ...)`"),
        ),
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
        check_arg_attr(cx, arg);
    }
    check_wire_names(cx, method);
    let contexts: Vec<_> = method
        .args
        .iter()
        .filter_map(|arg| arg.context.as_ref())
        .collect();
    for extra in contexts.iter().skip(1) {
        cx.error_spanned_by(extra, "a method takes at most one #[context] argument");
    }
    if let ParamsShape::List(params) = method.params_shape() {
        for attr in params.iter().filter_map(|arg| arg.whole.as_ref()) {
            cx.error_spanned_by(
                attr,
                "#[params] binds the whole `params` value to one argument, so the method can have no other params (a #[context] argument is allowed)",
            );
        }
    }
}

/// `#[arg]` names a param on the wire: an argument that is no param, or
/// that is the whole `params`, has no name there.
fn check_arg_attr(cx: &Ctxt, arg: &Arg) {
    let Some(attr) = &arg.attr else {
        return;
    };
    if arg.whole.is_some() {
        cx.error_spanned_by(
            &attr.attr,
            "a #[params] argument is the whole `params` value, which has no key to rename: rename the fields of its type with serde (`#[serde(rename = \"...\")]`, `#[serde(rename_all = \"camelCase\")]`)",
        );
    } else if arg.context.is_some() {
        cx.error_spanned_by(
            &attr.attr,
            "a #[context] argument is not a param, so it has no name on the wire to rename",
        );
    }
}

/// No two params of a method answer to one name in named params.
fn check_wire_names(cx: &Ctxt, method: &Method) {
    let mut seen: HashMap<&str, &Arg> = HashMap::new();
    for arg in method.params().filter(|arg| arg.ident().is_some()) {
        match seen.entry(&arg.name) {
            Entry::Occupied(first) => cx.syn_error(syn::Error::new(
                arg.name_span(),
                format!(
                    "`{}` and `{}` both go by `{}` in named params; give one of them another wire name with #[arg(rename = \"...\")]",
                    first.get().pat.to_token_stream(),
                    arg.pat.to_token_stream(),
                    arg.name,
                ),
            )),
            Entry::Vacant(entry) => {
                entry.insert(arg);
            }
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
        (Kind::Method, Some(ty)) if !may_be_result(ty) => cx.error_spanned_by(
            ty,
            "a #[method] must return `Result<T, E>` (for example `RpcResult<T>`) so that a failure can be answered with an error object",
        ),
        _ => {}
    }
}

/// A streaming method is a method whose result spells out its items.
fn check_stream(cx: &Ctxt, method: &Method) {
    let Some(stream) = &method.attr.stream else {
        return;
    };
    if method.kind() == Kind::Notification {
        cx.syn_error(syn::Error::new(
            stream.span,
            "a #[notification] is never answered, so it cannot stream; make it a #[method]",
        ));
        return;
    }
    if let Some(ty) = method.output()
        && method.stream_item().is_none()
    {
        cx.error_spanned_by(
            ty,
            "a streaming method returns `RpcResult<impl Stream<Item = RpcResult<T>> + Send + 'static>` (any `...Result` for either), with the item type `T` written out",
        );
    }
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(tuple) if tuple.elems.is_empty())
}

/// Whether `ty` may be a `Result`: any path but those that plainly are not
/// one. An alias (`type Answer = Result<u32, ErrorObject>;`) cannot be told
/// apart here; the compiler checks it against the bounds of the generated code.
fn may_be_result(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|seg| !NOT_RESULTS.iter().any(|name| seg.ident == name)),
        Type::Path(_) | Type::Macro(_) | Type::Verbatim(_) => true,
        Type::Group(group) => may_be_result(&group.elem),
        Type::Paren(paren) => may_be_result(&paren.elem),
        _ => false,
    }
}

/// Types often returned by mistake instead of a `Result` of them.
#[rustfmt::skip]
const NOT_RESULTS: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "f32", "f64", "String", "Option", "Vec", "Box", "Arc", "Rc", "Cow",
    "HashMap", "BTreeMap", "HashSet", "BTreeSet", "VecDeque", "Value", "ErrorObject",
];
