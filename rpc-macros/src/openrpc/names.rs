//! Rust names for the names a document uses: methods, params, properties,
//! schemas and enum values become identifiers that compile and stay unique.

use std::collections::HashSet;

use proc_macro2::{Ident, Span};

/// Words that cannot be identifiers even as raw identifiers (`r#self`).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Rust's keywords, strict and reserved, of every edition up to 2024.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// The words of `name`: runs of letters and digits, split where the case
/// goes from lower to upper (`petId` is `pet`, `id`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// `snake_case` of `name`, `fallback` when it has no letters or digits.
pub fn snake(name: &str, fallback: &str) -> String {
    let joined = words(name)
        .iter()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    legal(joined, fallback)
}

/// `UpperCamelCase` of `name`, `fallback` when it has no letters or digits.
pub fn camel(name: &str, fallback: &str) -> String {
    let joined: String = words(name)
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
            first.unwrap_or_default() + &chars.as_str().to_lowercase()
        })
        .collect();
    legal(joined, fallback)
}

/// `name`, or `fallback` when empty; `_`-prefixed when it starts with a digit;
/// ASCII only, as identifiers of other scripts are easy to misspell.
fn legal(name: String, fallback: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match ascii.chars().next() {
        None => fallback.to_owned(),
        Some(c) if c.is_ascii_digit() => format!("_{ascii}"),
        Some(_) => ascii,
    }
}

/// Whether `name` is usable as it is as an identifier (raw if a keyword).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let starts = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    starts && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && !NOT_RAW.contains(&name)
}

/// The identifier for `name`, which [`is_identifier`] accepts: raw if a keyword.
pub fn ident(name: &str) -> Ident {
    if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// Names handed out in one scope, each once.
#[derive(Default)]
pub struct Scope {
    taken: HashSet<String>,
}

impl Scope {
    /// A scope where `reserved` are already taken.
    pub fn reserving(reserved: &[&str]) -> Self {
        Scope {
            taken: reserved.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    /// `name`, made unique in this scope with a number, and not a word that
    /// cannot be an identifier.
    pub fn claim(&mut self, name: String) -> String {
        let base = match NOT_RAW.contains(&name.as_str()) {
            true => format!("{name}_"),
            false => name,
        };
        let mut candidate = base.clone();
        let mut n = 2;
        while !self.taken.insert(candidate.clone()) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_snake_or_camel_case_identifiers() {
        assert_eq!(snake("petId", "x"), "pet_id");
        assert_eq!(snake("get-pet by.id", "x"), "get_pet_by_id");
        assert_eq!(snake("list_pets", "x"), "list_pets");
        assert_eq!(snake("2fa", "x"), "_2fa");
        assert_eq!(snake("--", "param"), "param");
        assert_eq!(camel("simple math", "Api"), "SimpleMath");
        assert_eq!(camel("pullrequest", "T"), "Pullrequest");
        assert_eq!(camel("NewPet", "T"), "NewPet");
        assert_eq!(camel("new_pet", "T"), "NewPet");
        assert_eq!(camel("Ünïcode name", "T"), "_n_codeName");
    }

    #[test]
    fn keywords_are_raw_and_the_unrawable_are_renamed() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("limit").to_string(), "limit");
        assert!(is_identifier("petId"));
        assert!(!is_identifier("pet-id"));
        assert!(!is_identifier("self"));
        let mut scope = Scope::reserving(&["into_service"]);
        assert_eq!(scope.claim("self".into()), "self_");
        assert_eq!(scope.claim("into_service".into()), "into_service2");
        assert_eq!(scope.claim("a".into()), "a");
        assert_eq!(scope.claim("a".into()), "a2");
    }
}
