//! Reading our attributes: `#[rpc(...)]` on the trait, `#[method(...)]` and
//! `#[notification(...)]` on its methods, `#[arg(...)]` on an argument.
//!
//! Every unknown key or bad value is recorded in the [`Ctxt`] and parsing goes
//! on, so one pass reports every mistake.

mod arg;

pub use arg::ArgAttr;

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitStr, Token};

use crate::case::Case;
use crate::ctxt::Ctxt;

/// How the generated client sends params.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamStyle {
    Positional,
    Named,
}

/// `#[rpc(...)]`.
pub struct TraitAttrs {
    pub krate: syn::Path,
    pub namespace: Option<LitStr>,
    pub separator: String,
    pub param_style: ParamStyle,
    pub allow_unknown_params: bool,
    /// The case of the named params' keys: `rename_all = "camelCase"`.
    pub rename_all: Option<Case>,
}

const TRAIT_KEYS: &[&str] = &[
    "namespace",
    "namespace_separator",
    "param_style",
    "allow_unknown_params",
    "rename_all",
    "crate",
];
const METHOD_KEYS: &[&str] = &[
    "name",
    "aliases",
    "param_style",
    "allow_unknown_params",
    "idempotent",
    "error",
    "example",
    "stream",
];

impl TraitAttrs {
    pub fn parse(cx: &Ctxt, args: TokenStream) -> Self {
        let mut attrs = TraitAttrs {
            krate: syn::parse_quote!(::typed_rpc),
            namespace: None,
            separator: "_".to_owned(),
            param_style: ParamStyle::Positional,
            allow_unknown_params: false,
            rename_all: None,
        };
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("namespace") {
                attrs.namespace = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("namespace_separator") {
                attrs.separator = meta.value()?.parse::<LitStr>()?.value();
            } else if meta.path.is_ident("param_style") {
                attrs.param_style = parse_param_style(cx, &meta)?;
            } else if meta.path.is_ident("allow_unknown_params") {
                attrs.allow_unknown_params = parse_flag(cx, &meta)?;
            } else if meta.path.is_ident("rename_all") {
                attrs.rename_all = parse_case(cx, &meta)?;
            } else if meta.path.is_ident("crate") {
                attrs.krate = meta.value()?.parse::<LitStr>()?.parse()?;
            } else {
                unknown_key(cx, &meta, "#[rpc]", TRAIT_KEYS)?;
            }
            Ok(())
        });
        if let Err(err) = parser.parse2(args) {
            cx.syn_error(err);
        }
        attrs
    }
}

/// Whether a method answers or not.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Method,
    Notification,
}

impl Kind {
    fn attr_name(self) -> &'static str {
        match self {
            Kind::Method => "method",
            Kind::Notification => "notification",
        }
    }
}

/// `#[method(...)]` or `#[notification(...)]`.
pub struct MethodAttr {
    pub kind: Kind,
    pub name: Option<LitStr>,
    pub aliases: Vec<LitStr>,
    pub param_style: Option<ParamStyle>,
    pub allow_unknown_params: bool,
    /// Safe to send twice, so a client may retry it.
    pub idempotent: bool,
    /// `error(code = ..., message = "...")`, each: errors the method declares.
    pub errors: Vec<ErrorAttr>,
    /// `example(params = "...", result = "...")`, each: example calls.
    pub examples: Vec<ExampleAttr>,
    /// `stream` or `stream(notification = "...", unsubscribe = "...")`:
    /// the method answers with a stream of items.
    pub stream: Option<StreamAttr>,
}

/// `stream(notification = "eth_subscription", unsubscribe = "eth_unsubscribe")`.
pub struct StreamAttr {
    /// The `stream` keyword, where errors about streaming are reported.
    pub span: proc_macro2::Span,
    pub notification: Option<LitStr>,
    pub unsubscribe: Option<LitStr>,
}

/// `error(code = -32001, message = "Task not found")`.
pub struct ErrorAttr {
    pub code: i64,
    pub message: String,
}

/// `example(name = "...", params = "[42, 23]", result = "19")`: JSON texts,
/// checked to parse.
pub struct ExampleAttr {
    pub name: Option<String>,
    pub params: String,
    pub result: Option<String>,
}

impl MethodAttr {
    /// Reads the method's `#[method]` or `#[notification]`; `None` if it has
    /// neither (or both, which is reported).
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Option<Self> {
        let mut found: Option<MethodAttr> = None;
        for attr in attrs {
            let kind = match attr.path() {
                p if p.is_ident("method") => Kind::Method,
                p if p.is_ident("notification") => Kind::Notification,
                _ => continue,
            };
            if let Some(first) = &found {
                let message = match first.kind == kind {
                    true => format!("duplicate #[{}] attribute", kind.attr_name()),
                    false => {
                        "a method is either a #[method] or a #[notification], not both".to_owned()
                    }
                };
                cx.error_spanned_by(attr, message);
                continue;
            }
            found = Some(MethodAttr::parse_one(cx, attr, kind));
        }
        found
    }

    fn parse_one(cx: &Ctxt, attr: &Attribute, kind: Kind) -> Self {
        let mut parsed = MethodAttr {
            kind,
            name: None,
            aliases: Vec::new(),
            param_style: None,
            allow_unknown_params: false,
            idempotent: false,
            errors: Vec::new(),
            examples: Vec::new(),
            stream: None,
        };
        if let syn::Meta::Path(_) = attr.meta {
            return parsed;
        }
        let which = format!("#[{}]", kind.attr_name());
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                parsed.name = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("aliases") {
                let value = meta.value()?;
                let content;
                syn::bracketed!(content in value);
                parsed.aliases = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?
                    .into_iter()
                    .collect();
            } else if meta.path.is_ident("param_style") {
                parsed.param_style = Some(parse_param_style(cx, &meta)?);
            } else if meta.path.is_ident("allow_unknown_params") {
                parsed.allow_unknown_params = parse_flag(cx, &meta)?;
            } else if meta.path.is_ident("idempotent") {
                parsed.idempotent = parse_flag(cx, &meta)?;
            } else if meta.path.is_ident("error") {
                parsed.errors.extend(parse_error(cx, &meta)?);
            } else if meta.path.is_ident("example") {
                parsed.examples.extend(parse_example(cx, &meta, kind)?);
            } else if meta.path.is_ident("stream") {
                parsed.stream = Some(parse_stream(cx, &meta)?);
            } else {
                unknown_key(cx, &meta, &which, METHOD_KEYS)?;
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
        parsed
    }
}

/// `stream`, alone or with the names its items travel under on duplex transports.
fn parse_stream(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<StreamAttr> {
    let mut stream = StreamAttr {
        span: syn::spanned::Spanned::span(&meta.path),
        notification: None,
        unsubscribe: None,
    };
    if meta.input.is_empty() || meta.input.peek(Token![,]) {
        return Ok(stream);
    }
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("notification") {
            stream.notification = Some(inner.value()?.parse()?);
        } else if inner.path.is_ident("unsubscribe") {
            stream.unsubscribe = Some(inner.value()?.parse()?);
        } else {
            unknown_key(cx, &inner, "stream(...)", &["notification", "unsubscribe"])?;
        }
        Ok(())
    })?;
    Ok(stream)
}

fn parse_param_style(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<ParamStyle> {
    let value: LitStr = meta.value()?.parse()?;
    match value.value().as_str() {
        "positional" => Ok(ParamStyle::Positional),
        "named" => Ok(ParamStyle::Named),
        other => {
            cx.error_spanned_by(
                &value,
                format!("unknown param style \"{other}\"; expected `param_style = \"positional\"` or `param_style = \"named\"`"),
            );
            Ok(ParamStyle::Positional)
        }
    }
}

/// `rename_all = "camelCase"`: one of serde's case names; `None` (reported)
/// for another.
fn parse_case(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<Case>> {
    let value: LitStr = meta.value()?.parse()?;
    let name = value.value();
    let case = Case::from_name(&name);
    if case.is_none() {
        let names: Vec<&str> = Case::NAMES.iter().map(|(name, _)| *name).collect();
        // The same letters in another case or with other separators first
        // (`camel_case`), then a misspelling.
        let letters = |name: &str| name.replace(['_', '-'], "").to_ascii_lowercase();
        let hint = names
            .iter()
            .copied()
            .find(|known| letters(known) == letters(&name))
            .or_else(|| closest(&name, &names))
            .map(|known| format!("did you mean \"{known}\"? "))
            .unwrap_or_default();
        let listed = names
            .iter()
            .map(|name| format!("\"{name}\""))
            .collect::<Vec<_>>()
            .join(", ");
        cx.error_spanned_by(
            &value,
            format!(
                "unknown case \"{name}\" in `rename_all`; {hint}expected one of serde's: {listed}"
            ),
        );
    }
    Ok(case)
}

/// `error(code = ..., message = "...")`; `None` (reported) when a part is
/// missing or the code is one JSON-RPC reserves for the protocol.
fn parse_error(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Option<ErrorAttr>> {
    let (mut code, mut message) = (None, None);
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("code") {
            let value: syn::Expr = inner.value()?.parse()?;
            code = Some((error_code(&value), value));
        } else if inner.path.is_ident("message") {
            message = Some(inner.value()?.parse::<LitStr>()?.value());
        } else {
            unknown_key(cx, &inner, "error(...)", &["code", "message"])?;
        }
        Ok(())
    })?;
    let (Some((code, code_expr)), Some(message)) = (code, message) else {
        cx.error_spanned_by(
            &meta.path,
            "an error needs both its code and its message: `error(code = -32001, message = \"Task not found\")`",
        );
        return Ok(None);
    };
    let Some(code) = code else {
        cx.error_spanned_by(
            code_expr,
            "an error code is an integer literal, such as `-32001`",
        );
        return Ok(None);
    };
    // The server's own range, -32000 to -32099, is the application's to use.
    if (-32768..=-32100).contains(&code) {
        cx.error_spanned_by(
            code_expr,
            format!("error code {code} is reserved by JSON-RPC 2.0 for the protocol; use -32000 to -32099 (server errors) or a code outside -32768 to -32000"),
        );
        return Ok(None);
    }
    Ok(Some(ErrorAttr { code, message }))
}

/// The value of an integer literal, negative or not.
fn error_code(expr: &syn::Expr) -> Option<i64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(int),
            ..
        }) => int.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => error_code(expr).and_then(i64::checked_neg),
        _ => None,
    }
}

/// `example(name = "...", params = "...", result = "...")`; `None`
/// (reported) when `params` is missing or a JSON text does not parse.
fn parse_example(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    kind: Kind,
) -> syn::Result<Option<ExampleAttr>> {
    let mut example = ExampleAttr {
        name: None,
        params: String::new(),
        result: None,
    };
    let (mut params, mut result) = (None, None);
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("name") {
            example.name = Some(inner.value()?.parse::<LitStr>()?.value());
        } else if inner.path.is_ident("params") {
            params = Some(inner.value()?.parse::<LitStr>()?);
        } else if inner.path.is_ident("result") {
            result = Some(inner.value()?.parse::<LitStr>()?);
        } else {
            unknown_key(cx, &inner, "example(...)", &["name", "params", "result"])?;
        }
        Ok(())
    })?;
    let Some(params) = params else {
        cx.error_spanned_by(
            &meta.path,
            "an example needs its params, as JSON: `example(params = \"[42, 23]\", result = \"19\")`",
        );
        return Ok(None);
    };
    let mut valid = json_text(cx, &params, "params");
    valid &= matches!(
        params.value().trim_start().as_bytes().first(),
        Some(b'[' | b'{')
    ) || report(
        cx,
        &params,
        "an example's params are a JSON array (by position) or object (by name), as sent on the wire",
    );
    example.params = params.value();
    match (kind, result) {
        (Kind::Notification, Some(result)) => {
            cx.error_spanned_by(
                &result,
                "a notification is never answered: its example has no `result`",
            );
            valid = false;
        }
        (Kind::Method, None) => {
            cx.error_spanned_by(
                &meta.path,
                "a method's example needs the `result` it answers with, as JSON",
            );
            valid = false;
        }
        (_, Some(result)) => {
            valid &= json_text(cx, &result, "result");
            example.result = Some(result.value());
        }
        (Kind::Notification, None) => {}
    }
    Ok(valid.then_some(example))
}

/// Whether `text` holds JSON; reports it if not.
fn json_text(cx: &Ctxt, text: &LitStr, what: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(&text.value()) {
        Ok(_) => true,
        Err(err) => report(
            cx,
            text,
            format!("the example's `{what}` is not JSON: {err}"),
        ),
    }
}

/// Reports `message` on `target`; always `false`, so it reads as a failed check.
fn report(cx: &Ctxt, target: &LitStr, message: impl std::fmt::Display) -> bool {
    cx.error_spanned_by(target, message);
    false
}

/// A key that is either present or not; a value given to it is reported.
pub fn parse_flag(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let value: syn::Expr = meta.value()?.parse()?;
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        cx.error_spanned_by(
            value,
            format!("`{key}` takes no value: write `{key}` alone to turn it on, or leave it out"),
        );
    }
    Ok(true)
}

/// Reports an unknown key, with the closest known one if it looks like a
/// misspelling of it, and skips its value, so the keys after it are read too.
pub fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    attr: &str,
    allowed: &[&str],
) -> syn::Result<()> {
    let listed = allowed
        .iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match meta.path.get_ident() {
        Some(ident) => {
            let key = ident.to_string();
            let hint = closest(&key, allowed)
                .map(|known| format!("did you mean `{known}`? "))
                .unwrap_or_default();
            format!("unknown key `{key}` in {attr}; {hint}expected one of {listed}")
        }
        None => format!("unknown key in {attr}; expected one of {listed}"),
    };
    cx.error_spanned_by(&meta.path, message);
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}

/// The known key `key` is most likely a misspelling of: the nearest by edit
/// distance, if at most a third of its letters differ, or one that contains
/// it or is contained in it (`separator` for `namespace_separator`).
fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let (distance, best) = known
        .iter()
        .map(|candidate| (edit_distance(key, candidate), *candidate))
        .min_by_key(|(distance, _)| *distance)?;
    let near = distance * 3 <= key.chars().count().max(best.chars().count());
    let part = |candidate: &&str| candidate.contains(key) || key.contains(*candidate);
    match near {
        true => Some(best),
        false => known.iter().copied().find(|candidate| part(candidate)),
    }
}

/// How many letters to insert, delete, replace or swap with their neighbour
/// to turn `a` into `b` (the optimal string alignment distance): a swap such
/// as `nmae` for `name` is one typo, not two.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // `table[i][j]`: the distance from the first `i` letters of `a` to the
    // first `j` letters of `b`.
    let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in table[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let replace = table[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = replace.min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
}

/// Whether `attrs` hold one of ours that must be stripped before the item is emitted.
pub fn is_ours(attr: &Attribute, names: &[&str]) -> bool {
    names.iter().any(|name| attr.path().is_ident(name))
}

/// The doc comment, one line per `///` line, with the conventional leading space removed.
pub fn docs(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => Some(s.value()),
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::{METHOD_KEYS, TRAIT_KEYS, closest, edit_distance};

    #[test]
    fn edit_distance_counts_insertions_deletions_and_replacements() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("name", "name"), 0);
        assert_eq!(edit_distance("nmae", "name"), 1);
        assert_eq!(edit_distance("nam", "name"), 1);
        assert_eq!(edit_distance("names", "name"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "crate"), 5);
    }

    #[test]
    fn closest_suggests_misspellings_and_parts_only() {
        assert_eq!(closest("nmae", METHOD_KEYS), Some("name"));
        assert_eq!(closest("alias", METHOD_KEYS), Some("aliases"));
        assert_eq!(closest("idempotant", METHOD_KEYS), Some("idempotent"));
        assert_eq!(closest("paramstyle", METHOD_KEYS), Some("param_style"));
        assert_eq!(
            closest("separator", TRAIT_KEYS),
            Some("namespace_separator")
        );
        assert_eq!(closest("krate", TRAIT_KEYS), Some("crate"));
        assert_eq!(closest("blocking", METHOD_KEYS), None);
        assert_eq!(closest("timeout", TRAIT_KEYS), None);
    }
}
