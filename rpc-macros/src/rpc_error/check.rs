//! What makes an error enum invalid: a variant without a code, two variants
//! with one code, a code the specification reserves taken by accident.

use std::collections::HashMap;

use super::ast::ErrorEnum;
use crate::ctxt::Ctxt;

/// `-32768..=-32000`, which JSON-RPC reserves for itself and for servers'
/// own errors.
const RESERVED: std::ops::RangeInclusive<i64> = -32768..=-32000;

/// Checks every variant; returns, per variant, whether the client must not
/// recognise it (no code, or the code of an earlier variant).
pub fn check(cx: &Ctxt, error: &ErrorEnum) -> Vec<bool> {
    let mut seen: HashMap<i64, &syn::Ident> = HashMap::new();
    let mut skipped = Vec::with_capacity(error.variants.len());
    for variant in &error.variants {
        let Some((code, expr)) = &variant.code else {
            cx.error_spanned_by(
                variant.ident,
                format!(
                    "`{}` has no error code: add `#[rpc_error(code = ..., message = \"...\")]` to it",
                    variant.ident
                ),
            );
            skipped.push(true);
            continue;
        };
        match (RESERVED.contains(code), &variant.reserved) {
            (true, None) => cx.error_spanned_by(
                expr,
                format!(
                    "code {code} is in -32768..=-32000, which JSON-RPC reserves; if a protocol gives it this meaning (A2A's -32001, MCP's -32002), write `reserved` beside it: `#[rpc_error(code = {code}, reserved, ...)]`"
                ),
            ),
            (false, Some(flag)) => cx.error_spanned_by(
                flag,
                format!("`reserved` is for codes in -32768..=-32000, and {code} is not one: remove it"),
            ),
            _ => {}
        }
        match seen.get(code) {
            Some(first) => {
                cx.error_spanned_by(
                    expr,
                    format!("duplicate error code {code}: `{first}` has it already"),
                );
                skipped.push(true);
            }
            None => {
                seen.insert(*code, variant.ident);
                skipped.push(false);
            }
        }
    }
    skipped
}
