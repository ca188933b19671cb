//! JSON on the terminal: indented for people, or on one line for scripts.
//!
//! Replies are re-laid out from their text rather than parsed into values,
//! so numbers come out exactly as the server wrote them (integers past
//! `u64`, long fractions) and members keep their order.

use std::io::Write as _;

/// Writes `text` and a newline to stdout. A reader that has gone away (the
/// output piped into `head`) is not an error worth a panic.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}").and_then(|()| stdout.flush());
}

/// How JSON is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Two-space indentation, one member or element per line.
    Pretty,
    /// No whitespace at all.
    Compact,
}

impl Style {
    /// Compact when asked for, else pretty.
    pub fn compact_if(compact: bool) -> Self {
        if compact {
            Style::Compact
        } else {
            Style::Pretty
        }
    }

    /// `json`, which must be valid JSON text, laid out in this style.
    pub fn render(self, json: &str) -> String {
        let mut out = Layout {
            text: String::with_capacity(json.len() * 2),
            depth: 0,
            style: self,
        };
        let mut chars = json.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    out.text.push('"');
                    copy_string_rest(&mut chars, &mut out.text);
                }
                ' ' | '\t' | '\n' | '\r' => {}
                '{' | '[' => {
                    out.text.push(c);
                    while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
                    let close = if c == '{' { '}' } else { ']' };
                    if chars.next_if_eq(&close).is_some() {
                        out.text.push(close);
                    } else {
                        out.depth += 1;
                        out.line_break();
                    }
                }
                '}' | ']' => {
                    out.depth = out.depth.saturating_sub(1);
                    out.line_break();
                    out.text.push(c);
                }
                ',' => {
                    out.text.push(',');
                    out.line_break();
                }
                ':' => {
                    out.text.push(':');
                    if self == Style::Pretty {
                        out.text.push(' ');
                    }
                }
                other => out.text.push(other),
            }
        }
        out.text
    }
}

/// The text being laid out, and how deep in it we are.
struct Layout {
    text: String,
    depth: usize,
    style: Style,
}

impl Layout {
    fn line_break(&mut self) {
        if self.style == Style::Pretty {
            self.text.push('\n');
            for _ in 0..self.depth {
                self.text.push_str("  ");
            }
        }
    }
}

/// Copies the rest of a string literal, its closing quote included.
fn copy_string_rest(chars: &mut impl Iterator<Item = char>, out: &mut String) {
    let mut escaped = false;
    for c in chars {
        out.push(c);
        match (escaped, c) {
            (false, '\\') => escaped = true,
            (false, '"') => return,
            _ => escaped = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Style;

    #[test]
    fn pretty_indents_and_keeps_numbers_and_strings_as_written() {
        let json = r#"{"a" : [1, 18446744073709551616, 0.10000000000000000001], "b":{}, "c":[ ], "d":"x, \"y\": [z]"}"#;
        assert_eq!(
            Style::Pretty.render(json),
            "{\n  \"a\": [\n    1,\n    18446744073709551616,\n    0.10000000000000000001\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": \"x, \\\"y\\\": [z]\"\n}"
        );
    }

    #[test]
    fn compact_drops_all_whitespace_outside_strings() {
        let json = "{ \"a\" : [ 1 , 2 ],\n \"b\" : \" s p \\\\\" }";
        assert_eq!(Style::Compact.render(json), r#"{"a":[1,2],"b":" s p \\"}"#);
    }

    #[test]
    fn a_scalar_is_itself() {
        assert_eq!(Style::Pretty.render("19"), "19");
        assert_eq!(Style::Pretty.render(r#""hi""#), r#""hi""#);
    }
}
