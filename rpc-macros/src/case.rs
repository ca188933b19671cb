//! serde's case names (`rename_all = "camelCase"`), applied to the
//! `snake_case` names of a method's arguments to give their wire names.

/// A case a `snake_case` name is written in on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    /// Every case, by the name serde gives it.
    pub const NAMES: &'static [(&'static str, Case)] = &[
        ("lowercase", Case::Lower),
        ("UPPERCASE", Case::Upper),
        ("PascalCase", Case::Pascal),
        ("camelCase", Case::Camel),
        ("snake_case", Case::Snake),
        ("SCREAMING_SNAKE_CASE", Case::ScreamingSnake),
        ("kebab-case", Case::Kebab),
        ("SCREAMING-KEBAB-CASE", Case::ScreamingKebab),
    ];

    /// The case serde calls `name`.
    pub fn from_name(name: &str) -> Option<Case> {
        Case::NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, case)| *case)
    }

    /// `name`, a `snake_case` identifier, in this case.
    pub fn apply(self, name: &str) -> String {
        match self {
            // The name is in snake case already, and so in lower case.
            Case::Lower | Case::Snake => name.to_owned(),
            Case::Upper | Case::ScreamingSnake => name.to_ascii_uppercase(),
            Case::Pascal => capitalize_words(name),
            Case::Camel => {
                let pascal = capitalize_words(name);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_lowercase().chain(chars).collect()
                })
            }
            Case::Kebab => name.replace('_', "-"),
            Case::ScreamingKebab => name.replace('_', "-").to_ascii_uppercase(),
        }
    }
}

/// The words of a `snake_case` name, each capitalized, joined:
/// `history_length` is `HistoryLength`.
fn capitalize_words(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for word in name.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Case;

    #[test]
    fn each_case_writes_a_snake_case_name_as_serde_does() {
        let cases = [
            ("lowercase", "history_length"),
            ("UPPERCASE", "HISTORY_LENGTH"),
            ("PascalCase", "HistoryLength"),
            ("camelCase", "historyLength"),
            ("snake_case", "history_length"),
            ("SCREAMING_SNAKE_CASE", "HISTORY_LENGTH"),
            ("kebab-case", "history-length"),
            ("SCREAMING-KEBAB-CASE", "HISTORY-LENGTH"),
        ];
        for (name, expected) in cases {
            let case = Case::from_name(name).unwrap();
            assert_eq!(case.apply("history_length"), expected, "{name}");
        }
    }

    #[test]
    fn one_word_digits_and_unknown_names() {
        let camel = Case::Camel;
        assert_eq!(camel.apply("id"), "id");
        assert_eq!(camel.apply("page_2_token"), "page2Token");
        assert_eq!(Case::Pascal.apply("id"), "Id");
        assert_eq!(Case::from_name("camelcase"), None);
        assert_eq!(Case::from_name("Camel"), None);
    }
}
