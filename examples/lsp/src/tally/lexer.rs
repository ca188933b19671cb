//! Tally's tokens, each with its byte span.

use std::ops::Range as Span;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// `let`.
    Let,
    /// A name: letters, digits, marks, `_` and emoji, not starting with a digit.
    Name,
    /// A number such as `12`, `0.5` or `1e3`.
    Number(f64),
    /// `=`, `+`, `-`, `*`, `/`, `^`, `(`, `)`, `,`.
    Punct(char),
    /// `;` or a line break: the end of a statement.
    End,
    /// `#` to the end of the line.
    Comment,
    /// A character Tally has no use for.
    Stray(char),
}

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: Kind,
    pub span: Span<usize>,
}

/// The tokens of `text`, whitespace left out, line breaks kept as [`Kind::End`].
pub fn tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let mut end = start + c.len_utf8();
        let kind = match c {
            '\r' if chars.peek().is_some_and(|&(_, next)| next == '\n') => {
                chars.next();
                end += 1;
                Kind::End
            }
            '\n' | '\r' | ';' => Kind::End,
            c if c.is_whitespace() => continue,
            '#' => {
                while let Some(&(at, next)) = chars.peek() {
                    if next == '\n' || next == '\r' {
                        break;
                    }
                    end = at + next.len_utf8();
                    chars.next();
                }
                Kind::Comment
            }
            '=' | '+' | '-' | '*' | '/' | '^' | '(' | ')' | ',' => Kind::Punct(c),
            c if c.is_ascii_digit() || c == '.' => {
                while let Some(&(at, next)) = chars.peek() {
                    let exponent_sign = (next == '+' || next == '-')
                        && matches!(text[..at].chars().next_back(), Some('e' | 'E'));
                    if !(next.is_ascii_alphanumeric() || next == '.' || exponent_sign) {
                        break;
                    }
                    end = at + next.len_utf8();
                    chars.next();
                }
                match text[start..end].parse() {
                    Ok(value) => Kind::Number(value),
                    Err(_) => Kind::Stray(c),
                }
            }
            c if starts_name(c) => {
                while let Some(&(at, next)) = chars.peek() {
                    if !continues_name(next) {
                        break;
                    }
                    end = at + next.len_utf8();
                    chars.next();
                }
                match &text[start..end] {
                    "let" => Kind::Let,
                    _ => Kind::Name,
                }
            }
            c => Kind::Stray(c),
        };
        tokens.push(Token {
            kind,
            span: start..end,
        });
    }
    tokens
}

/// Whether `c` may start a name: a letter (UAX #31's `XID_Start`), `_`, or an emoji.
pub fn starts_name(c: char) -> bool {
    unicode_ident::is_xid_start(c) || c == '_' || is_emoji(c)
}

/// Whether `c` may go on a name: also digits and combining marks
/// (`XID_Continue`), and the joiners of emoji sequences.
pub fn continues_name(c: char) -> bool {
    unicode_ident::is_xid_continue(c) || is_emoji(c) || matches!(c, '\u{200d}' | '\u{fe0f}')
}

/// Whether `text` is a name, as a rename's new name must be.
pub fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(starts_name) && chars.all(continues_name) && text != "let"
}

/// The pictographs of the emoji blocks: enough for names such as `🍎`.
fn is_emoji(c: char) -> bool {
    matches!(c, '\u{1F300}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{1F000}'..='\u{1F2FF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokens(text)
            .into_iter()
            .map(|token| (token.kind, &text[token.span]))
            .collect()
    }

    #[test]
    fn names_numbers_and_comments() {
        assert_eq!(
            kinds("let 🍎é = 1.5e-3*x # 合計 😀\r\nmax(a,b);"),
            [
                (Kind::Let, "let"),
                (Kind::Name, "🍎é"),
                (Kind::Punct('='), "="),
                (Kind::Number(1.5e-3), "1.5e-3"),
                (Kind::Punct('*'), "*"),
                (Kind::Name, "x"),
                (Kind::Comment, "# 合計 😀"),
                (Kind::End, "\r\n"),
                (Kind::Name, "max"),
                (Kind::Punct('('), "("),
                (Kind::Name, "a"),
                (Kind::Punct(','), ","),
                (Kind::Name, "b"),
                (Kind::Punct(')'), ")"),
                (Kind::End, ";"),
            ]
        );
    }

    #[test]
    fn what_is_not_tally_is_stray() {
        assert_eq!(
            kinds("1..2 $"),
            [(Kind::Stray('1'), "1..2"), (Kind::Stray('$'), "$")]
        );
    }

    #[test]
    fn names_for_rename() {
        assert!(is_name("価格") && is_name("🍎🍏") && is_name("e\u{301}") && is_name("_x1"));
        assert!(!is_name("1x") && !is_name("let") && !is_name("a b") && !is_name(""));
    }
}
