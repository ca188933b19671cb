//! Which alternative of a `oneOf` or `anyOf` a JSON value is, for the types
//! `openrpc!` generates: decided by what the schemas say (the value's JSON
//! type, `const` and `enum` values, `required` members, string
//! `pattern`s), and where that leaves several, by the alternative that
//! knows the most of the value's members, so that `{a, b}` becomes the
//! alternative with `a` and `b`, not the first one that has `a`.
//!
//! A closed object (`additionalProperties: false`) with members its schema
//! does not name is ranked below every alternative the value fits
//! outright, not ruled out: servers add members before the documents that
//! describe them do (an Ethereum node's `totalDifficulty` in MetaMask's
//! closed `Block`), and a client must still read such an answer.
//!
//! Not a public API: `openrpc!`'s expansion fills the tables.

use std::cmp::Reverse;
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// JSON types, as bits of [`Alternative::kinds`].
pub mod kind {
    /// `null`.
    pub const NULL: u8 = 1;
    /// `true` or `false`.
    pub const BOOLEAN: u8 = 2;
    /// A number without a fraction.
    pub const INTEGER: u8 = 4;
    /// A number with a fraction (`number` is `INTEGER | FRACTION`).
    pub const FRACTION: u8 = 8;
    /// A string.
    pub const STRING: u8 = 16;
    /// An array.
    pub const ARRAY: u8 = 32;
    /// An object.
    pub const OBJECT: u8 = 64;
    /// Any value.
    pub const ANY: u8 = 127;
}

/// What one alternative's schema says a value must be.
pub struct Alternative {
    /// The JSON types it admits ([`kind`] bits).
    pub kinds: u8,
    /// Members whose value must be one of these JSON texts (`const`,
    /// `enum`); the member `""` is the value itself.
    pub values: &'static [(&'static str, &'static [&'static str])],
    /// Members an object must have.
    pub required: &'static [&'static str],
    /// Members its `properties` name.
    pub known: &'static [&'static str],
    /// Whether an object may have no other members.
    pub closed: bool,
    /// The `pattern` a string must match.
    pub pattern: Option<Pattern>,
}

/// A `pattern`, compiled the first time it is needed; one that
/// `regex-lite` cannot compile (look-around) decides nothing.
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Option<regex_lite::Regex>>,
}

impl Pattern {
    /// The pattern `source`, not compiled yet.
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    fn matches(&self, text: &str) -> bool {
        let compiled = self
            .compiled
            .get_or_init(|| regex_lite::Regex::new(self.source).ok());
        compiled.as_ref().is_none_or(|regex| regex.is_match(text))
    }
}

fn kind_of(value: &Value) -> u8 {
    match value {
        Value::Null => kind::NULL,
        Value::Bool(_) => kind::BOOLEAN,
        Value::Number(n) if n.is_i64() || n.is_u64() => kind::INTEGER,
        Value::Number(_) => kind::FRACTION,
        Value::String(_) => kind::STRING,
        Value::Array(_) => kind::ARRAY,
        Value::Object(_) => kind::OBJECT,
    }
}

impl Alternative {
    /// How well `value` fits: `None` when the schema rules it out, else
    /// whether it keeps within a closed object's members, the members it
    /// knows and the values it pinned (more is better).
    fn fit(&self, value: &Value) -> Option<(bool, usize, usize)> {
        if self.kinds & kind_of(value) == 0 {
            return None;
        }
        let mut pinned = 0;
        for (member, allowed) in self.values {
            let actual = match *member {
                "" => Some(value),
                member => value.get(member),
            };
            let Some(actual) = actual else { continue };
            let equal =
                |text: &&str| serde_json::from_str::<Value>(text).is_ok_and(|v| v == *actual);
            if !allowed.iter().any(equal) {
                return None;
            }
            pinned += 1;
        }
        if let (Some(pattern), Value::String(text)) = (&self.pattern, value)
            && !pattern.matches(text)
        {
            return None;
        }
        let Value::Object(members) = value else {
            return Some((true, 0, pinned));
        };
        if self
            .required
            .iter()
            .any(|name| !members.contains_key(*name))
        {
            return None;
        }
        let known = members
            .keys()
            .filter(|name| self.known.contains(&name.as_str()))
            .count();
        let within = !self.closed || known == members.len();
        Some((within, known, pinned))
    }
}

/// How well an alternative fits, best highest: within its closed members,
/// members known, values pinned, members required, then the fewer JSON
/// types.
type Rank = (bool, usize, usize, usize, Reverse<u32>);

/// Decodes `value` as the alternative it fits best: the alternatives the
/// schemas allow, those it keeps within the closed members of first, most
/// members known next, then most values pinned, most
/// members required, fewest JSON types, then the document's order; the
/// first that `decode` accepts wins.
pub fn choose<T, E: std::fmt::Display>(
    value: &Value,
    alternatives: &[Alternative],
    decode: impl Fn(usize, &Value) -> Result<T, E>,
) -> Result<T, String> {
    let mut fits: Vec<(usize, Rank)> = alternatives
        .iter()
        .enumerate()
        .filter_map(|(index, alternative)| {
            let (within, known, pinned) = alternative.fit(value)?;
            let narrow = Reverse(alternative.kinds.count_ones());
            let required = alternative.required.len();
            Some((index, (within, known, pinned, required, narrow)))
        })
        .collect();
    // Stable: equal ranks keep the document's order.
    fits.sort_by_key(|(_, rank)| Reverse(*rank));
    let mut first_error = None;
    for (index, _) in fits {
        match decode(index, value) {
            Ok(decoded) => return Ok(decoded),
            Err(err) => {
                first_error.get_or_insert_with(|| format!(" (alternative {index}: {err})"));
            }
        }
    }
    Err(format!(
        "the value fits none of the {} alternatives of the schema's `oneOf`/`anyOf`{}",
        alternatives.len(),
        first_error.unwrap_or_default()
    ))
}

/// Reads an optional member that is present as `Some`, `null` included
/// (`Some(None)`), so that a present `null` is not taken for an absent
/// member and dropped when the value is written again.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const fn object(known: &'static [&'static str]) -> Alternative {
        tagged(known, &[])
    }

    const fn tagged(
        known: &'static [&'static str],
        values: &'static [(&'static str, &'static [&'static str])],
    ) -> Alternative {
        Alternative {
            kinds: kind::OBJECT,
            values,
            required: &[],
            known,
            closed: false,
            pattern: None,
        }
    }

    const fn closed(member: &'static [&'static str]) -> Alternative {
        Alternative {
            kinds: kind::OBJECT,
            values: &[],
            required: member,
            known: member,
            closed: true,
            pattern: None,
        }
    }

    const fn scalar(kinds: u8, pattern: Option<Pattern>) -> Alternative {
        Alternative {
            kinds,
            values: &[],
            required: &[],
            known: &[],
            closed: false,
            pattern,
        }
    }

    fn chosen(value: Value, alternatives: &[Alternative]) -> Result<usize, String> {
        choose(&value, alternatives, |index, _| Ok::<_, String>(index))
    }

    #[test]
    fn the_alternative_that_knows_most_members_wins_and_ties_keep_the_order() {
        let alternatives = [object(&["a"]), object(&["a", "b"])];
        assert_eq!(chosen(json!({"a": 1, "b": 2}), &alternatives), Ok(1));
        assert_eq!(chosen(json!({"a": 1}), &alternatives), Ok(0));
    }

    #[test]
    fn consts_required_members_and_patterns_rule_alternatives_out() {
        let tags = [
            tagged(&["kind", "tag"], &[("kind", &["\"tag\""])]),
            tagged(&["kind", "tag"], &[("kind", &["\"price\""])]),
        ];
        assert_eq!(chosen(json!({"kind": "price", "tag": "x"}), &tags), Ok(1));
        let required = [closed(&["Download"]), closed(&["Parcel"])];
        assert_eq!(chosen(json!({"Parcel": {}}), &required), Ok(1));
        assert!(chosen(json!({"Courier": {}}), &required).is_err());
        let strings = [
            scalar(kind::STRING, Some(Pattern::new("^0x[0-9a-f]*$"))),
            scalar(kind::STRING, Some(Pattern::new("^(latest|earliest)$"))),
        ];
        assert_eq!(chosen(json!("latest"), &strings), Ok(1));
        assert_eq!(chosen(json!("0x1f"), &strings), Ok(0));
    }

    #[test]
    fn a_closed_object_with_unnamed_members_comes_after_those_it_fits_outright() {
        let block_or_header = [closed(&["hash", "number"]), object(&["hash"])];
        let extended = json!({"hash": "0x1", "number": "0x2", "totalDifficulty": "0x0"});
        assert_eq!(chosen(extended, &block_or_header), Ok(1));
        let blocks = [closed(&["hash", "number"])];
        let extended = json!({"hash": "0x1", "number": "0x2", "totalDifficulty": "0x0"});
        assert_eq!(chosen(extended, &blocks), Ok(0));
    }

    #[test]
    fn an_integer_prefers_the_integer_alternative_and_a_failed_decode_tries_the_next() {
        let numbers = [
            scalar(kind::INTEGER | kind::FRACTION, None),
            scalar(kind::INTEGER, None),
        ];
        assert_eq!(chosen(json!(5), &numbers), Ok(1));
        assert_eq!(chosen(json!(5.5), &numbers), Ok(0));
        let both = [object(&["a"]), object(&["a"])];
        let second = choose(&json!({"a": 1}), &both, |index, _| match index {
            0 => Err("no"),
            _ => Ok(index),
        });
        assert_eq!(second, Ok(1));
        let none = choose(&json!({"a": 1}), &both, |_, _| Err::<usize, _>("no"));
        assert_eq!(
            none.unwrap_err(),
            "the value fits none of the 2 alternatives of the schema's `oneOf`/`anyOf` (alternative 0: no)"
        );
    }

    #[test]
    fn a_present_null_is_some_none() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct S {
            #[serde(default, deserialize_with = "present")]
            a: Option<Option<u8>>,
        }
        let read = |text: &str| serde_json::from_str::<S>(text).unwrap().a;
        assert_eq!(read("{}"), None);
        assert_eq!(read(r#"{"a": null}"#), Some(None));
        assert_eq!(read(r#"{"a": 1}"#), Some(Some(1)));
    }
}
