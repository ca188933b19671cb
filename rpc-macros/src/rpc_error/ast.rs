//! Reading the enum and its `#[rpc_error(...)]` attributes.

use syn::{Attribute, Expr, ExprLit, ExprUnary, Fields, Ident, Lit, LitStr, UnOp};

use crate::attr::{parse_flag, unknown_key};
use crate::ctxt::Ctxt;

const ENUM_KEYS: &[&str] = &["crate", "no_display"];
const VARIANT_KEYS: &[&str] = &["code", "message", "reserved"];

/// The enum deriving `RpcError`.
pub struct ErrorEnum<'a> {
    pub ident: &'a Ident,
    pub krate: syn::Path,
    pub variants: Vec<ErrorVariant<'a>>,
    /// Whether to implement `Display` (from the messages) and
    /// `std::error::Error`: not with `no_display`, nor beside thiserror.
    pub display: bool,
}

/// One variant: one error code.
pub struct ErrorVariant<'a> {
    pub ident: &'a Ident,
    pub fields: &'a Fields,
    /// The code and the expression it was written as.
    pub code: Option<(i64, Expr)>,
    pub message: Option<LitStr>,
    /// The `reserved` flag, which allows a code the specification reserves.
    pub reserved: Option<syn::Path>,
}

impl<'a> ErrorEnum<'a> {
    /// The enum, or `None` (reported) when the input cannot be one.
    pub fn from_syn(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Self> {
        let syn::Data::Enum(data) = &input.data else {
            cx.error_spanned_by(
                &input.ident,
                "#[derive(RpcError)] is for enums: one variant per error code",
            );
            return None;
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "#[derive(RpcError)] does not support generics: an error code names one concrete error",
            );
            return None;
        }
        let mut parsed = ErrorEnum {
            ident: &input.ident,
            krate: syn::parse_quote!(::typed_rpc),
            variants: Vec::new(),
            display: !derives_thiserror(input, data),
        };
        for attr in input
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("rpc_error"))
        {
            parse_enum_attr(cx, attr, &mut parsed);
        }
        parsed.variants = data
            .variants
            .iter()
            .map(|variant| ErrorVariant::from_syn(cx, variant))
            .collect();
        Some(parsed)
    }
}

/// Whether thiserror implements `Display` and `Error` for the enum: its
/// `#[error(...)]` is on the enum or on a variant.
fn derives_thiserror(input: &syn::DeriveInput, data: &syn::DataEnum) -> bool {
    let is_error = |attr: &Attribute| attr.path().is_ident("error");
    input.attrs.iter().any(is_error)
        || data
            .variants
            .iter()
            .any(|variant| variant.attrs.iter().any(is_error))
}

fn parse_enum_attr(cx: &Ctxt, attr: &Attribute, parsed: &mut ErrorEnum) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("crate") {
            parsed.krate = meta.value()?.parse::<LitStr>()?.parse()?;
        } else if meta.path.is_ident("no_display") {
            parse_flag(cx, &meta)?;
            parsed.display = false;
        } else {
            unknown_key(cx, &meta, "#[rpc_error] on an enum", ENUM_KEYS)?;
        }
        Ok(())
    });
    if let Err(err) = result {
        cx.syn_error(err);
    }
}

impl<'a> ErrorVariant<'a> {
    fn from_syn(cx: &Ctxt, variant: &'a syn::Variant) -> Self {
        let mut parsed = ErrorVariant {
            ident: &variant.ident,
            fields: &variant.fields,
            code: None,
            message: None,
            reserved: None,
        };
        for attr in variant
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("rpc_error"))
        {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("code") {
                    let expr: Expr = meta.value()?.parse()?;
                    match code_value(&expr) {
                        Some(code) => parsed.code = Some((code, expr)),
                        None => cx.error_spanned_by(
                            &expr,
                            "`code` must be an integer literal that fits in an i64, such as `code = 1001` or `code = -32001`",
                        ),
                    }
                } else if meta.path.is_ident("message") {
                    parsed.message = Some(meta.value()?.parse()?);
                } else if meta.path.is_ident("reserved") {
                    parse_flag(cx, &meta)?;
                    parsed.reserved = Some(meta.path.clone());
                } else {
                    unknown_key(cx, &meta, "#[rpc_error] on a variant", VARIANT_KEYS)?;
                }
                Ok(())
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
        parsed
    }

    /// The message sent: as written, or the variant's name in words
    /// (`KeyNotFound` is "Key not found").
    pub fn message(&self) -> String {
        match &self.message {
            Some(message) => message.value(),
            None => words(&self.ident.to_string()),
        }
    }
}

/// `1001` or `-32001`.
fn code_value(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => format!("-{}", int.base10_digits()).parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// A CamelCase name as a sentence: `KeyNotFound` is "Key not found", and an
/// acronym stays as it is (`HTTPTimeout` is "HTTP timeout").
fn words(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let starts_word = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if starts_word || words.is_empty() {
            words.push(String::new());
        }
        if let Some(word) = words.last_mut() {
            word.push(c);
        }
    }
    let mut sentence = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let acronym = word.chars().filter(|c| c.is_uppercase()).count() > 1;
        sentence.push(match i > 0 && !acronym {
            true => word.to_lowercase(),
            false => word.clone(),
        });
    }
    sentence.join(" ")
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn a_variant_name_reads_as_a_sentence() {
        assert_eq!(words("KeyNotFound"), "Key not found");
        assert_eq!(words("Full"), "Full");
        assert_eq!(words("HTTPTimeout"), "HTTP timeout");
        assert_eq!(words("Version2Required"), "Version2 required");
    }
}
