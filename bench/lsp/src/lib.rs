//! The Tally language server's work, framework-free, for the benchmark's
//! three servers: typed-rpc (the real `tally-lsp`), tower-lsp-server and
//! async-lsp. Each framework has its own crate of protocol types; they all
//! answer from this [`Core`] in plain values (ranges as four numbers), so
//! the language, the document store and the position conversion cost the
//! same in each and only the framework differs.
//!
//! `bin/lsp_load.rs` drives a server over its stdio with a mix of
//! `didChange`, `hover` and `completion`; `BENCHMARKS.md` says how to run it.

pub mod mix;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lsp_types::{
    CompletionItemKind, HoverContents, Position, Range, TextDocumentContentChangeEvent,
};
use typed_rpc_lsp::tally::{Analyzed, ProblemKind, Settings};
use typed_rpc_lsp::{Document, PositionEncoding};

/// A range as `[start line, start character, end line, end character]`.
pub type Span4 = [u32; 4];

/// One diagnostic, in plain values.
pub struct Problem {
    pub range: Span4,
    /// 1 error, 2 warning.
    pub severity: u8,
    pub message: String,
    pub unnecessary: bool,
}

/// One completion item, in plain values.
pub struct Item {
    pub label: String,
    /// The protocol's `CompletionItemKind` number.
    pub kind: u32,
    pub detail: Option<String>,
    pub docs: Option<String>,
}

/// The open documents and their analyses, by URI.
#[derive(Default)]
pub struct Core {
    analyzed: Mutex<HashMap<String, Arc<Analyzed>>>,
    settings: Settings,
}

impl Core {
    /// `didOpen`: the document's problems.
    pub fn open(&self, uri: &str, version: i32, text: String) -> Vec<Problem> {
        let document = Document::new(text, version, PositionEncoding::Utf16);
        self.analyze(uri, Arc::new(document))
    }

    /// `didChange` with `edits` (`None` ranges replace the whole text): the
    /// new version's problems, `None` if the document is not open.
    pub fn change(
        &self,
        uri: &str,
        version: i32,
        edits: Vec<(Option<Span4>, String)>,
    ) -> Option<Vec<Problem>> {
        let previous = self.analyzed.lock().unwrap().get(uri)?.document.clone();
        let changes: Vec<TextDocumentContentChangeEvent> = edits
            .into_iter()
            .map(|(range, text)| TextDocumentContentChangeEvent {
                range: range.map(range_of),
                range_length: None,
                text,
            })
            .collect();
        let mut document = Arc::unwrap_or_clone(previous);
        document.apply(&changes, version);
        Some(self.analyze(uri, Arc::new(document)))
    }

    /// `hover`: markdown and the range it is about.
    pub fn hover(&self, uri: &str, line: u32, character: u32) -> Option<(String, Span4)> {
        let analyzed = self.analyzed.lock().unwrap().get(uri)?.clone();
        let hover = analyzed.hover(Position::new(line, character), &self.settings)?;
        let HoverContents::Markup(markup) = hover.contents else {
            return None;
        };
        Some((markup.value, span_of(hover.range?)))
    }

    /// `completion`: the items.
    pub fn completion(&self, uri: &str, line: u32, character: u32) -> Vec<Item> {
        let Some(analyzed) = self.analyzed.lock().unwrap().get(uri).cloned() else {
            return Vec::new();
        };
        analyzed
            .completion(Position::new(line, character), &self.settings)
            .into_iter()
            .map(|item| Item {
                label: item.label,
                kind: match item.kind {
                    Some(CompletionItemKind::VARIABLE) => 6,
                    Some(CompletionItemKind::FUNCTION) => 3,
                    Some(CompletionItemKind::KEYWORD) => 14,
                    _ => 1,
                },
                detail: item.detail,
                docs: item.documentation.map(|docs| match docs {
                    lsp_types::Documentation::String(text) => text,
                    lsp_types::Documentation::MarkupContent(markup) => markup.value,
                }),
            })
            .collect()
    }

    fn analyze(&self, uri: &str, document: Arc<Document>) -> Vec<Problem> {
        let analyzed = Arc::new(Analyzed::new(document));
        let problems = analyzed
            .analysis
            .problems
            .iter()
            .filter(|problem| self.settings.unused_warnings || problem.kind != ProblemKind::Unused)
            .map(|problem| Problem {
                range: span_of(analyzed.document.range(problem.span.clone())),
                severity: match problem.severity {
                    typed_rpc_lsp::tally::Severity::Error => 1,
                    typed_rpc_lsp::tally::Severity::Warning => 2,
                },
                message: problem.message.clone(),
                unnecessary: problem.kind == ProblemKind::Unused,
            })
            .collect();
        self.analyzed
            .lock()
            .unwrap()
            .insert(uri.to_owned(), analyzed);
        problems
    }
}

/// Defines, in the calling module, the conversions of [`Core`]'s plain
/// values into a protocol types crate whose names are the `lsp-types`
/// ones (each framework has its own): `range`, `diagnostics` and `item`.
#[macro_export]
macro_rules! conversions {
    ($types:path) => {
        use $types as types;

        fn range([l0, c0, l1, c1]: $crate::Span4) -> types::Range {
            types::Range::new(types::Position::new(l0, c0), types::Position::new(l1, c1))
        }

        fn diagnostics(problems: Vec<$crate::Problem>) -> Vec<types::Diagnostic> {
            problems
                .into_iter()
                .map(|problem| types::Diagnostic {
                    range: range(problem.range),
                    severity: Some(match problem.severity {
                        1 => types::DiagnosticSeverity::ERROR,
                        _ => types::DiagnosticSeverity::WARNING,
                    }),
                    source: Some("tally".to_owned()),
                    message: problem.message,
                    tags: problem
                        .unnecessary
                        .then(|| vec![types::DiagnosticTag::UNNECESSARY]),
                    ..types::Diagnostic::default()
                })
                .collect()
        }

        fn item(item: $crate::Item) -> types::CompletionItem {
            types::CompletionItem {
                label: item.label,
                kind: Some(match item.kind {
                    6 => types::CompletionItemKind::VARIABLE,
                    3 => types::CompletionItemKind::FUNCTION,
                    _ => types::CompletionItemKind::KEYWORD,
                }),
                detail: item.detail,
                documentation: item.docs.map(types::Documentation::String),
                ..types::CompletionItem::default()
            }
        }

        /// A `didChange`'s edits as [`Core::change`] takes them.
        fn edits(
            changes: Vec<types::TextDocumentContentChangeEvent>,
        ) -> Vec<(Option<$crate::Span4>, String)> {
            changes
                .into_iter()
                .map(|change| {
                    let range = change
                        .range
                        .map(|r| [r.start.line, r.start.character, r.end.line, r.end.character]);
                    (range, change.text)
                })
                .collect()
        }
    };
}

fn range_of([l0, c0, l1, c1]: Span4) -> Range {
    Range::new(Position::new(l0, c0), Position::new(l1, c1))
}

fn span_of(range: Range) -> Span4 {
    [
        range.start.line,
        range.start.character,
        range.end.line,
        range.end.character,
    ]
}
