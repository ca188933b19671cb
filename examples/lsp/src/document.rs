//! One open document: its text, its lines, and positions converted both ways.

use std::ops::Range as Span;

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

use crate::PositionEncoding;

/// The text of an open document, as the client last described it, with the
/// conversions between protocol positions and byte offsets.
///
/// A server works in byte offsets into [`text`](Self::text) (what Rust's
/// `str` indexes by); the client speaks in lines and characters counted in
/// the negotiated [`PositionEncoding`]. Lines end at `\n`, `\r\n` or `\r`,
/// as the protocol says. A position past the end of its line means the
/// line's end, one past the last line the document's end, and one inside a
/// character (half of a surrogate pair, a byte within a UTF-8 sequence)
/// that character's start: a client's stale position never panics.
///
/// ```
/// use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
/// use typed_rpc_lsp::{Document, PositionEncoding};
///
/// let mut doc = Document::new("let 🍎 = 3\nlet y = 🍎 * 2\n", 1, PositionEncoding::Utf16);
/// // In UTF-16 the apple is two units: `=` on line 0 is at character 7.
/// assert_eq!(doc.offset(Position::new(0, 7)), "let 🍎 ".len());
/// assert_eq!(doc.position("let 🍎 = 3\nlet y = 🍎".len()), Position::new(1, 10));
///
/// // An incremental edit, as `didChange` carries it: `2` becomes `20`.
/// doc.apply(
///     &[TextDocumentContentChangeEvent {
///         range: Some(Range::new(Position::new(1, 13), Position::new(1, 14))),
///         range_length: None,
///         text: "20".into(),
///     }],
///     2,
/// );
/// assert_eq!(doc.text(), "let 🍎 = 3\nlet y = 🍎 * 20\n");
/// assert_eq!(doc.version(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Document {
    text: String,
    version: i32,
    encoding: PositionEncoding,
    /// The byte offset at which each line starts; the first is 0.
    line_starts: Vec<usize>,
}

impl Document {
    /// A document holding `text` at `version`, positions counted in `encoding`.
    pub fn new(text: impl Into<String>, version: i32, encoding: PositionEncoding) -> Self {
        let text = text.into();
        let line_starts = line_starts(&text);
        Document {
            text,
            version,
            encoding,
            line_starts,
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The version the client gave the text, growing with each change.
    pub fn version(&self) -> i32 {
        self.version
    }

    /// The unit positions count in.
    pub fn encoding(&self) -> PositionEncoding {
        self.encoding
    }

    /// How many lines there are (a text ending in a line break has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text of line `line`, without its line break; empty past the end.
    pub fn line(&self, line: usize) -> &str {
        match self.line_starts.get(line) {
            Some(&start) => &self.text[start..self.line_end(line)],
            None => "",
        }
    }

    /// The byte offset of `position`, clamped into the document.
    pub fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.line_starts.get(line) else {
            return self.text.len();
        };
        let end = self.line_end(line);
        let mut units = 0;
        for (at, c) in self.text[start..end].char_indices() {
            let width = self.encoding.width(c);
            if units + width > position.character {
                return start + at;
            }
            units += width;
        }
        end
    }

    /// The position of the byte offset `offset` (rounded down to a
    /// character boundary, clamped to the end).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let character = self.encoding.measure(&self.text[start..offset]);
        Position::new(line as u32, character)
    }

    /// The byte range of `range`; a reversed range is read the right way round.
    pub fn span(&self, range: Range) -> Span<usize> {
        let (start, end) = (self.offset(range.start), self.offset(range.end));
        start.min(end)..start.max(end)
    }

    /// The protocol range of the byte range `span`.
    pub fn range(&self, span: Span<usize>) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The range that covers the whole text.
    pub fn full_range(&self) -> Range {
        self.range(0..self.text.len())
    }

    /// Applies `changes` in order, as `textDocument/didChange` carries
    /// them: each with a range replaces that range (positions read against
    /// the text as the changes before it left it), each without replaces
    /// the whole text. The document is then at `version`.
    pub fn apply(&mut self, changes: &[TextDocumentContentChangeEvent], version: i32) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let span = self.span(range);
                    let first_line = self.position(span.start).line as usize;
                    self.text.replace_range(span, &change.text);
                    self.relines_from(first_line);
                }
                None => {
                    self.text.clone_from(&change.text);
                    self.line_starts = line_starts(&self.text);
                }
            }
        }
        self.version = version;
    }

    /// Where line `line`'s text ends, before its line break.
    fn line_end(&self, line: usize) -> usize {
        let Some(&next) = self.line_starts.get(line + 1) else {
            return self.text.len();
        };
        let bytes = self.text.as_bytes();
        let mut end = next;
        if end > 0 && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        end
    }

    /// Finds the lines again from line `first` on, after an edit that
    /// started there: the lines before it are as they were.
    fn relines_from(&mut self, first: usize) {
        // A `\r` ending the line before may now meet a `\n` at the edit's
        // start: step back a line so that `\r\n` is seen whole.
        let from = first.saturating_sub(1);
        let start = self.line_starts[from];
        self.line_starts.truncate(from);
        self.line_starts.extend(
            line_starts(&self.text[start..])
                .into_iter()
                .map(|at| start + at),
        );
    }
}

/// The byte offset at which each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\n' => starts.push(at + 1),
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => {
                at += 1;
                starts.push(at + 1);
            }
            b'\r' => starts.push(at + 1),
            _ => {}
        }
        at += 1;
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use PositionEncoding::*;

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|((l0, c0), (l1, c1))| {
                Range::new(Position::new(l0, c0), Position::new(l1, c1))
            }),
            range_length: None,
            text: text.into(),
        }
    }

    /// Emoji (astral, and a ZWJ sequence), CJK, and a combining mark.
    const MIXED: &str = "a😀b\n価格 = e\u{301}\r\n👩\u{200d}💻x\rlast";

    #[test]
    fn lines_end_at_every_kind_of_break() {
        let doc = Document::new(MIXED, 0, Utf16);
        assert_eq!(doc.line_count(), 4);
        assert_eq!(doc.line(0), "a😀b");
        assert_eq!(doc.line(1), "価格 = e\u{301}");
        assert_eq!(doc.line(2), "👩\u{200d}💻x");
        assert_eq!(doc.line(3), "last");
        assert_eq!(doc.line(9), "");
    }

    #[test]
    fn every_character_round_trips_in_every_encoding() {
        for encoding in [Utf8, Utf16, Utf32] {
            let doc = Document::new(MIXED, 0, encoding);
            for (offset, _) in MIXED.char_indices().chain([(MIXED.len(), ' ')]) {
                // The `\n` of a `\r\n` is inside a line break, no position's.
                if MIXED[..offset].ends_with('\r') && MIXED[offset..].starts_with('\n') {
                    continue;
                }
                let position = doc.position(offset);
                assert_eq!(
                    doc.offset(position),
                    offset,
                    "{encoding:?} at byte {offset}"
                );
            }
        }
    }

    #[test]
    fn characters_are_counted_in_the_negotiated_unit() {
        // `b` on line 0 comes after `a` and an astral emoji.
        let b = MIXED.find('b').unwrap();
        assert_eq!(
            Document::new(MIXED, 0, Utf8).position(b),
            Position::new(0, 5)
        );
        assert_eq!(
            Document::new(MIXED, 0, Utf16).position(b),
            Position::new(0, 3)
        );
        assert_eq!(
            Document::new(MIXED, 0, Utf32).position(b),
            Position::new(0, 2)
        );
        // `x` on line 2 comes after woman, ZWJ, laptop: 4 + 3 + 4 bytes,
        // 2 + 1 + 2 UTF-16 units, 3 scalars.
        let x = MIXED.find('x').unwrap();
        assert_eq!(
            Document::new(MIXED, 0, Utf8).position(x),
            Position::new(2, 11)
        );
        assert_eq!(
            Document::new(MIXED, 0, Utf16).position(x),
            Position::new(2, 5)
        );
        assert_eq!(
            Document::new(MIXED, 0, Utf32).position(x),
            Position::new(2, 3)
        );
    }

    #[test]
    fn positions_out_of_reach_are_clamped() {
        let doc = Document::new(MIXED, 0, Utf16);
        // Past the line's end: the end, before the line break.
        assert_eq!(doc.offset(Position::new(1, 99)), MIXED.find('\r').unwrap());
        // Past the last line: the end of the text.
        assert_eq!(doc.offset(Position::new(40, 0)), MIXED.len());
        // Inside the emoji's surrogate pair: its start.
        assert_eq!(doc.offset(Position::new(0, 2)), 1);
        // A byte inside a UTF-8 sequence, read back as a position: its character's.
        assert_eq!(
            Document::new(MIXED, 0, Utf8).position(2),
            Position::new(0, 1)
        );
        assert_eq!(doc.position(usize::MAX), Position::new(3, 4));
    }

    #[test]
    fn incremental_edits_apply_in_order() {
        let mut doc = Document::new("let x = 1\nlet y = x\n", 1, Utf16);
        doc.apply(
            &[
                // Insert an emoji name before the first line's value...
                change(Some(((0, 8), (0, 8))), "😀 + "),
                // ...then, reading positions after that edit, replace `x` on
                // line 1 with text that spans lines.
                change(Some(((1, 8), (1, 9))), "価\r\n+ é"),
            ],
            2,
        );
        assert_eq!(doc.text(), "let x = 😀 + 1\nlet y = 価\r\n+ é\n");
        assert_eq!(doc.line_count(), 4);
        assert_eq!(doc.line(2), "+ é");
        assert_eq!(doc.version(), 2);
        // A whole-text change resets everything.
        doc.apply(&[change(None, "z")], 3);
        assert_eq!((doc.text(), doc.line_count()), ("z", 1));
    }

    #[test]
    fn an_edit_that_joins_a_carriage_return_to_a_line_feed_makes_one_break() {
        let mut doc = Document::new("a\rb\n", 0, Utf16);
        assert_eq!(doc.line_count(), 3);
        // Delete `b`: `\r` and `\n` now meet, one break.
        doc.apply(&[change(Some(((1, 0), (1, 1))), "")], 1);
        assert_eq!(doc.text(), "a\r\n");
        assert_eq!(doc.line_count(), 2);
        assert_eq!(doc.position(3), Position::new(1, 0));
    }

    #[test]
    fn an_edit_with_a_reversed_range_replaces_the_same_text() {
        let mut doc = Document::new("abc", 0, Utf8);
        doc.apply(&[change(Some(((0, 2), (0, 1))), "X")], 1);
        assert_eq!(doc.text(), "aXc");
    }
}
