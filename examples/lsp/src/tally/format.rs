//! Tally's one layout: a space around each operator, none inside parentheses.

use super::lexer::{Kind, Token, tokens};

/// `text` laid out the one way Tally is written: each line's tokens with a
/// space around `=` and the binary operators, after `,` and `;`, before a
/// comment, and nowhere else; indentation removed. Line breaks, comments
/// and any line with a character Tally does not know stay as they are.
///
/// ```
/// assert_eq!(
///     typed_rpc_lsp::tally::format("  let  x=-( 1+2 )*max(3 ,4)#note\r\nx;x"),
///     "let x = -(1 + 2) * max(3, 4) # note\r\nx; x",
/// );
/// ```
pub fn format(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut line: Vec<Token> = Vec::new();
    let mut line_start = 0;
    for token in tokens(text) {
        match token.kind {
            // A line break, not a `;`, ends the line.
            Kind::End if &text[token.span.clone()] != ";" => {
                write_line(text, line_start..token.span.start, &line, &mut out);
                out.push_str(&text[token.span.clone()]);
                line.clear();
                line_start = token.span.end;
            }
            _ => line.push(token),
        }
    }
    write_line(text, line_start..text.len(), &line, &mut out);
    out
}

/// Writes one line, from its tokens; as it was if it has a stray character.
fn write_line(text: &str, span: std::ops::Range<usize>, line: &[Token], out: &mut String) {
    if line
        .iter()
        .any(|token| matches!(token.kind, Kind::Stray(_)))
    {
        out.push_str(&text[span]);
        return;
    }
    let mut previous: Option<(Kind, bool)> = None;
    for token in line {
        // A minus at the start, or after an operator, `(`, `,`, `;` or
        // `=`, negates: `-x`.
        let negates = token.kind == Kind::Punct('-')
            && match previous {
                None => true,
                Some((Kind::Punct(c), _)) => c != ')',
                Some((kind, _)) => matches!(kind, Kind::End | Kind::Let),
            };
        if let Some((before, before_negates)) = previous
            && space_between(before, before_negates, token.kind)
        {
            out.push(' ');
        }
        match token.kind {
            Kind::Comment => out.push_str(&comment(&text[token.span.clone()])),
            _ => out.push_str(&text[token.span.clone()]),
        }
        previous = Some((token.kind, negates));
    }
}

/// `#note` as `# note`; a comment that starts with a space keeps its text.
fn comment(text: &str) -> String {
    let body = &text[1..];
    match body.chars().next() {
        None => "#".to_owned(),
        Some(c) if c.is_whitespace() => text.to_owned(),
        Some(_) => format!("# {body}"),
    }
}

/// Whether a space goes between two tokens of a line; `negates` says the
/// one before is a minus that negates.
fn space_between(before: Kind, negates: bool, after: Kind) -> bool {
    use Kind::*;
    match (before, after) {
        (_, Comment) => true,
        (_, End | Punct(',' | ')')) | (Punct('('), _) => false,
        // A call: `max(`.
        (Name, Punct('(')) => false,
        (Punct('-'), _) => !negates,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formatted_file_stays_as_it_is() {
        let tidy = "let 🍎 = 3 # 合計\nlet y = -🍎 * (2 + sqrt(4)) ^ 2\n\ny; max(1, 2)\n";
        assert_eq!(format(tidy), tidy);
    }

    #[test]
    fn a_line_with_a_stray_character_is_left_alone() {
        assert_eq!(format("let  x=1 $\nlet  y=2"), "let  x=1 $\nlet y = 2");
    }
}
