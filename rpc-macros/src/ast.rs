//! The trait as the macro sees it: its methods, their wire names and arguments.
//!
//! Built from the syn tree without judging it; `check` decides what is valid.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::{
    FnArg, GenericArgument, Ident, Item, ItemTrait, LitStr, Pat, PathArguments, ReturnType,
    Signature, TraitItem, Type,
};

use crate::attr::{self, ArgAttr, Kind, MethodAttr, ParamStyle, TraitAttrs};
use crate::ctxt::Ctxt;

/// Attribute names this macro owns and strips from the emitted trait.
pub const METHOD_ATTRS: &[&str] = &["method", "notification"];
/// `doc` too: a doc comment on an argument describes the param in the
/// OpenRPC document, and Rust accepts none left on a parameter.
pub const ARG_ATTRS: &[&str] = &["params", "context", "arg", "doc"];

pub struct Api {
    pub item: ItemTrait,
    pub attrs: TraitAttrs,
    pub methods: Vec<Method>,
    pub docs: String,
}

pub struct Method {
    pub attr: MethodAttr,
    pub sig: Signature,
    /// The name on the wire, namespace included.
    pub name: String,
    /// Where the name comes from: the `name = "..."` literal, or the fn's ident.
    pub name_span: Span,
    pub args: Vec<Arg>,
    pub docs: String,
    pub param_style: ParamStyle,
    pub allow_unknown_params: bool,
    /// Whether the method carries `#[deprecated]` (kept on the trait).
    pub deprecated: bool,
}

pub struct Arg {
    pub pat: Pat,
    pub ty: Type,
    /// The param's name in named params (the argument's name, renamed by
    /// `#[arg(rename)]` or the trait's `rename_all`); empty for a pattern.
    pub name: String,
    /// The `#[arg(...)]` attribute, if any.
    pub attr: Option<ArgAttr>,
    /// The `#[params]` attribute, when the argument takes the whole `params` value.
    pub whole: Option<syn::Attribute>,
    /// The `#[context]` attribute, when the argument is the request's context
    /// rather than a param.
    pub context: Option<syn::Attribute>,
    /// The argument's doc comment.
    pub docs: String,
}

/// How a method's params map onto its arguments.
pub enum ParamsShape<'a> {
    /// `#[params]` on the only param: the whole `params` value is that argument.
    Whole(&'a Arg),
    /// Each param is one item of the positional array or named object, in
    /// declaration order; possibly none.
    List(Vec<&'a Arg>),
}

/// Reads the item `#[rpc]` is on, which must be a trait.
pub fn parse_trait(input: TokenStream) -> syn::Result<ItemTrait> {
    let item = match syn::parse2::<Item>(input)? {
        Item::Trait(item) => return Ok(item),
        item => item,
    };
    // The error spans the item's keyword and name rather than all of it.
    let (what, head) = match &item {
        Item::Struct(item) => (
            "a struct",
            keyword_and_name(&item.struct_token, &item.ident),
        ),
        Item::Enum(item) => ("an enum", keyword_and_name(&item.enum_token, &item.ident)),
        Item::Union(item) => ("a union", keyword_and_name(&item.union_token, &item.ident)),
        Item::Fn(item) => (
            "a function",
            keyword_and_name(&item.sig.fn_token, &item.sig.ident),
        ),
        Item::Mod(item) => ("a module", keyword_and_name(&item.mod_token, &item.ident)),
        Item::Type(item) => (
            "a type alias",
            keyword_and_name(&item.type_token, &item.ident),
        ),
        Item::Const(item) => (
            "a constant",
            keyword_and_name(&item.const_token, &item.ident),
        ),
        Item::Static(item) => (
            "a static",
            keyword_and_name(&item.static_token, &item.ident),
        ),
        Item::TraitAlias(item) => (
            "a trait alias",
            keyword_and_name(&item.trait_token, &item.ident),
        ),
        Item::Impl(item) => {
            let message = match &item.trait_ {
                Some(_) => {
                    "#[rpc] goes on the trait's definition, not on its impl: the impl stays as it is"
                }
                None => "#[rpc] goes on a trait, not on an impl block",
            };
            let head = match &item.trait_ {
                Some((_, path, _)) => quote!(#path),
                None => item.impl_token.to_token_stream(),
            };
            return Err(syn::Error::new_spanned(head, message));
        }
        _ => ("this item", item.to_token_stream()),
    };
    Err(syn::Error::new_spanned(
        head,
        format!(
            "#[rpc] goes on a trait, not on {what}: declare the API as a trait and implement it for your type"
        ),
    ))
}

fn keyword_and_name(keyword: &dyn ToTokens, ident: &Ident) -> TokenStream {
    quote!(#keyword #ident)
}

impl Api {
    pub fn from_syn(cx: &Ctxt, attrs: TraitAttrs, item: ItemTrait) -> Self {
        let methods = item
            .items
            .iter()
            .filter_map(|trait_item| match trait_item {
                TraitItem::Fn(f) => Method::from_syn(cx, &attrs, f),
                other => {
                    cx.error_spanned_by(other, "an #[rpc] trait holds only methods");
                    None
                }
            })
            .collect();
        Api {
            docs: attr::docs(&item.attrs),
            attrs,
            methods,
            item,
        }
    }
}

impl Method {
    fn from_syn(cx: &Ctxt, trait_attrs: &TraitAttrs, f: &syn::TraitItemFn) -> Option<Self> {
        let Some(attr) = MethodAttr::parse(cx, &f.attrs) else {
            cx.error_spanned_by(
                &f.sig.ident,
                "every method of an #[rpc] trait needs #[method] (a call that is answered) or #[notification] (one that is not); the wire name defaults to the method's name",
            );
            return None;
        };
        let (base, name_span) = match &attr.name {
            Some(lit) => (lit.value(), lit.span()),
            // `r#type` is called `type` on the wire.
            None => (f.sig.ident.unraw().to_string(), f.sig.ident.span()),
        };
        let name = match &trait_attrs.namespace {
            Some(ns) => format!("{}{}{}", ns.value(), trait_attrs.separator, base),
            None => base,
        };
        let args = f
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(arg) => Some(Arg::from_syn(cx, trait_attrs, arg)),
                FnArg::Receiver(_) => None,
            })
            .collect();
        Some(Method {
            param_style: attr.param_style.unwrap_or(trait_attrs.param_style),
            allow_unknown_params: attr.allow_unknown_params || trait_attrs.allow_unknown_params,
            attr,
            sig: f.sig.clone(),
            name,
            name_span,
            args,
            docs: attr::docs(&f.attrs),
            deprecated: find_attr(&f.attrs, "deprecated").is_some(),
        })
    }

    pub fn kind(&self) -> Kind {
        self.attr.kind
    }

    pub fn ident(&self) -> &Ident {
        &self.sig.ident
    }

    /// The declared return type, if any.
    pub fn output(&self) -> Option<&Type> {
        match &self.sig.output {
            ReturnType::Type(_, ty) => Some(ty),
            ReturnType::Default => None,
        }
    }

    /// The arguments decoded from `params`, in order (all but `#[context]`).
    pub fn params(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(|arg| arg.context.is_none())
    }

    /// Whether `params` is the one `#[params]` argument or a list of them.
    /// A `#[params]` beside other params gives a `List`, which `check` rejects.
    pub fn params_shape(&self) -> ParamsShape<'_> {
        let params: Vec<_> = self.params().collect();
        match params.as_slice() {
            [whole] if whole.whole.is_some() => ParamsShape::Whole(whole),
            _ => ParamsShape::List(params),
        }
    }

    /// The names a streaming method's items travel under on duplex
    /// transports: the notification's (the method's own name by default)
    /// and the unsubscribe method's (`<name>_unsubscribe` by default).
    pub fn stream_names(&self) -> Option<(String, String)> {
        let stream = self.attr.stream.as_ref()?;
        let notification = stream
            .notification
            .as_ref()
            .map_or_else(|| self.name.clone(), LitStr::value);
        let unsubscribe = stream
            .unsubscribe
            .as_ref()
            .map_or_else(|| format!("{}_unsubscribe", self.name), LitStr::value);
        Some((notification, unsubscribe))
    }

    /// The type of what the method answers with, as written: `T` of its
    /// `Result<T, E>`, or of each item for a streaming method.
    pub fn answer_type(&self) -> Option<&Type> {
        match self.attr.stream {
            Some(_) => self.stream_item(),
            None => result_ok_type(self.output()?),
        }
    }

    /// The type of a streaming method's items.
    pub fn stream_item(&self) -> Option<&Type> {
        result_ok_type(self.stream_item_result()?)
    }

    /// The `Result` each item of a streaming method is, as written:
    /// `RpcResult<T>` or `Result<T, E>`.
    pub fn stream_item_result(&self) -> Option<&Type> {
        self.attr.stream.as_ref()?;
        stream_item_result_type(self.output()?)
    }

    /// The aliases as written (aliases are not namespaced).
    pub fn aliases(&self) -> &[LitStr] {
        &self.attr.aliases
    }
}

impl Arg {
    fn from_syn(cx: &Ctxt, trait_attrs: &TraitAttrs, arg: &syn::PatType) -> Self {
        let attr = ArgAttr::parse(cx, &arg.attrs);
        let mut parsed = Arg {
            pat: (*arg.pat).clone(),
            ty: (*arg.ty).clone(),
            name: String::new(),
            whole: find_attr(&arg.attrs, "params"),
            context: find_attr(&arg.attrs, "context"),
            docs: attr::docs(&arg.attrs),
            attr,
        };
        let renamed = parsed.attr.as_ref().and_then(|attr| attr.rename.as_ref());
        parsed.name = match (renamed, parsed.ident(), trait_attrs.rename_all) {
            (Some(rename), _, _) => rename.value(),
            // `r#type` is called `type` on the wire.
            (None, Some(ident), Some(case)) => case.apply(&ident.unraw().to_string()),
            (None, Some(ident), None) => ident.unraw().to_string(),
            (None, None, _) => String::new(),
        };
        parsed
    }

    /// Where the param's wire name is written: its `rename`, or the
    /// argument's name.
    pub fn name_span(&self) -> Span {
        let renamed = self.attr.as_ref().and_then(|attr| attr.rename.as_ref());
        match (renamed, self.ident()) {
            (Some(rename), _) => rename.span(),
            (None, Some(ident)) => ident.span(),
            (None, None) => syn::spanned::Spanned::span(&self.pat),
        }
    }

    /// The argument's name; `check` has made sure it is a plain identifier.
    pub fn ident(&self) -> Option<&Ident> {
        match &self.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(&pat.ident),
            _ => None,
        }
    }

    /// Whether the argument is an `Option`, which may be left out.
    pub fn is_optional(&self) -> bool {
        match &self.ty {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|seg| seg.ident == "Option" && !seg.arguments.is_empty()),
            _ => false,
        }
    }
}

/// `T` of `Result<T, E>` (or of any `...Result<T, ...>`, such as `RpcResult<T>`
/// or `io::Result<T>`) as written, when the type spells it out; an alias
/// without arguments or with another name does not.
pub fn result_ok_type(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if !last.ident.to_string().ends_with("Result") {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(ok) => Some(ok),
        _ => None,
    }
}

/// `...Result<T>` of a streaming method's
/// `...Result<impl Stream<Item = ...Result<T>>>` as written.
pub fn stream_item_result_type(ty: &Type) -> Option<&Type> {
    let Type::ImplTrait(stream) = result_ok_type(ty)? else {
        return None;
    };
    stream.bounds.iter().find_map(|bound| {
        let syn::TypeParamBound::Trait(bound) = bound else {
            return None;
        };
        let last = bound.path.segments.last()?;
        if last.ident != "Stream" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        args.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(item) if item.ident == "Item" => {
                result_ok_type(&item.ty).map(|_| &item.ty)
            }
            _ => None,
        })
    })
}

/// `E` of `Result<T, E>` (or of any `...Result<T, E>`) as written, when the
/// type spells it out; `RpcResult<T>` and other aliases do not.
pub fn result_err_type(ty: &Type) -> Option<&Type> {
    result_ok_type(ty)?;
    let Type::Path(path) = ty else { return None };
    let PathArguments::AngleBracketed(args) = &path.path.segments.last()?.arguments else {
        return None;
    };
    match args.args.iter().nth(1)? {
        GenericArgument::Type(err) => Some(err),
        _ => None,
    }
}

fn find_attr(attrs: &[syn::Attribute], name: &str) -> Option<syn::Attribute> {
    attrs
        .iter()
        .find(|attr| attr.path().is_ident(name))
        .cloned()
}
