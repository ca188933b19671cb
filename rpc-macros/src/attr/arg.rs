//! `#[arg(...)]` on an argument: the name its param goes by on the wire.

use syn::{Attribute, LitStr};

use super::unknown_key;
use crate::ctxt::Ctxt;

const ARG_KEYS: &[&str] = &["rename"];

/// `#[arg(rename = "taskId")]`.
pub struct ArgAttr {
    /// The attribute itself, where errors about its place are reported.
    pub attr: Attribute,
    /// The param's name in named params, as written.
    pub rename: Option<LitStr>,
}

impl ArgAttr {
    /// Reads the argument's `#[arg]`, if it has one; a second one is reported.
    pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Option<Self> {
        let mut found: Option<ArgAttr> = None;
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("arg")) {
            if found.is_some() {
                cx.error_spanned_by(attr, "duplicate #[arg] attribute: write its keys in one");
                continue;
            }
            found = Some(ArgAttr::parse_one(cx, attr));
        }
        found
    }

    fn parse_one(cx: &Ctxt, attr: &Attribute) -> Self {
        let mut parsed = ArgAttr {
            attr: attr.clone(),
            rename: None,
        };
        if let syn::Meta::Path(_) = attr.meta {
            cx.error_spanned_by(
                attr,
                "#[arg] says how an argument travels: `#[arg(rename = \"taskId\")]` names its param on the wire",
            );
            return parsed;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let name: LitStr = meta.value()?.parse()?;
                if name.value().is_empty() {
                    cx.error_spanned_by(&name, "a param's wire name cannot be empty");
                }
                parsed.rename = Some(name);
            } else {
                unknown_key(cx, &meta, "#[arg]", ARG_KEYS)?;
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
        parsed
    }
}
