//! Tally's answers in the protocol's terms: diagnostics, hover, completion, definition, symbols, rename, formatting.
//!
//! Pure functions of a document and its analysis: no I/O, no server state,
//! so every server built on them (the one in this crate, and the same
//! language on other frameworks in the benchmarks) answers alike.

use std::collections::HashMap;
use std::sync::Arc;

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DiagnosticTag, DocumentSymbol, Documentation, Hover, HoverContents,
    Location, MarkupContent, MarkupKind, Position, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

use super::analysis::{Analysis, BUILTINS, Binding, Builtin, ProblemKind, Severity, Target};
use super::{Settings, format, lexer};
use crate::Document;

/// A document with its analysis, made once per version and shared by every
/// request that reads it.
#[derive(Debug)]
pub struct Analyzed {
    pub document: Arc<Document>,
    pub analysis: Analysis,
}

impl Analyzed {
    /// Analyses `document`.
    pub fn new(document: Arc<Document>) -> Self {
        let analysis = Analysis::of(document.text());
        Analyzed { document, analysis }
    }

    /// The diagnostics to publish for this version.
    pub fn diagnostics(&self, uri: &Uri, settings: &Settings) -> Vec<Diagnostic> {
        let document = &self.document;
        self.analysis
            .problems
            .iter()
            .filter(|problem| settings.unused_warnings || problem.kind != ProblemKind::Unused)
            .map(|problem| Diagnostic {
                range: document.range(problem.span.clone()),
                severity: Some(match problem.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                }),
                source: Some("tally".to_owned()),
                message: problem.message.clone(),
                tags: (problem.kind == ProblemKind::Unused)
                    .then(|| vec![DiagnosticTag::UNNECESSARY]),
                related_information: problem.related.clone().map(|span| {
                    vec![DiagnosticRelatedInformation {
                        location: Location::new(uri.clone(), document.range(span)),
                        message: "the earlier binding".to_owned(),
                    }]
                }),
                ..Diagnostic::default()
            })
            .collect()
    }

    /// The binding or function at `position`, with its value.
    pub fn hover(&self, position: Position, settings: &Settings) -> Option<Hover> {
        let offset = self.document.offset(position);
        let symbol = self.analysis.symbol_at(offset)?;
        let (span, text) = match self.analysis.binding_of(symbol) {
            Some(index) => {
                let binding = &self.analysis.bindings[index];
                let span = match symbol {
                    super::Symbol::Use(reference) => {
                        self.analysis.references[reference].span.clone()
                    }
                    super::Symbol::Definition(_) => binding.name_span.clone(),
                };
                (span, self.describe(binding, settings))
            }
            None => {
                let super::Symbol::Use(reference) = symbol else {
                    return None;
                };
                let reference = &self.analysis.references[reference];
                let Target::Builtin(builtin) = reference.target else {
                    return None;
                };
                (reference.span.clone(), describe_builtin(builtin))
            }
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text,
            }),
            range: Some(self.document.range(span)),
        })
    }

    /// What can be written at `position`: the bindings defined before it,
    /// the functions, and `let`.
    pub fn completion(&self, position: Position, settings: &Settings) -> Vec<CompletionItem> {
        let offset = self.document.offset(position);
        let bindings = self
            .analysis
            .visible_at(offset)
            .into_iter()
            .map(|binding| CompletionItem {
                label: binding.name.clone(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: binding
                    .value
                    .map(|value| format!("= {}", settings.show(value))),
                ..CompletionItem::default()
            });
        let functions = BUILTINS.iter().map(|builtin| CompletionItem {
            label: builtin.name.to_owned(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(builtin.signature.to_owned()),
            documentation: Some(Documentation::String(builtin.docs.to_owned())),
            ..CompletionItem::default()
        });
        let keyword = CompletionItem {
            label: "let".to_owned(),
            kind: Some(CompletionItemKind::KEYWORD),
            detail: Some("let name = value".to_owned()),
            ..CompletionItem::default()
        };
        bindings.chain(functions).chain([keyword]).collect()
    }

    /// Where the name at `position` is bound.
    pub fn definition(&self, uri: &Uri, position: Position) -> Option<Location> {
        let symbol = self.analysis.symbol_at(self.document.offset(position))?;
        let binding = &self.analysis.bindings[self.analysis.binding_of(symbol)?];
        Some(Location::new(
            uri.clone(),
            self.document.range(binding.name_span.clone()),
        ))
    }

    /// Every binding, in order, with its value.
    pub fn symbols(&self, settings: &Settings) -> Vec<DocumentSymbol> {
        self.analysis
            .bindings
            .iter()
            .map(|binding| {
                #[allow(deprecated)] // `deprecated` is a field every literal must fill
                DocumentSymbol {
                    name: binding.name.clone(),
                    detail: binding
                        .value
                        .map(|value| format!("= {}", settings.show(value))),
                    kind: SymbolKind::VARIABLE,
                    tags: None,
                    deprecated: None,
                    range: self.document.range(binding.span.clone()),
                    selection_range: self.document.range(binding.name_span.clone()),
                    children: None,
                }
            })
            .collect()
    }

    /// The edit that renames the binding at `position` and its uses to
    /// `new_name`: `Ok(None)` when no binding is there, `Err` with the
    /// reason when `new_name` is no Tally name.
    pub fn rename(
        &self,
        uri: &Uri,
        position: Position,
        new_name: &str,
    ) -> Result<Option<WorkspaceEdit>, String> {
        if !lexer::is_name(new_name) {
            return Err(format!("`{new_name}` is not a Tally name"));
        }
        let Some(symbol) = self.analysis.symbol_at(self.document.offset(position)) else {
            return Ok(None);
        };
        let Some(binding) = self.analysis.binding_of(symbol) else {
            return Ok(None);
        };
        let edits = self
            .analysis
            .occurrences(binding)
            .into_iter()
            .map(|span| TextEdit::new(self.document.range(span), new_name.to_owned()))
            .collect();
        Ok(Some(WorkspaceEdit::new(HashMap::from([(
            uri.clone(),
            edits,
        )]))))
    }

    /// The edits that lay the document out: none when it already is.
    pub fn formatting(&self) -> Vec<TextEdit> {
        let formatted = format(self.document.text());
        match formatted == self.document.text() {
            true => Vec::new(),
            false => vec![TextEdit::new(self.document.full_range(), formatted)],
        }
    }

    fn describe(&self, binding: &Binding, settings: &Settings) -> String {
        let source = &self.document.text()[binding.span.clone()];
        let value = match binding.value {
            Some(value) => settings.show(value),
            None => "(no value: see the problems)".to_owned(),
        };
        format!("```tally\n{source}\n```\n= {value}")
    }
}

fn describe_builtin(builtin: &Builtin) -> String {
    format!("```tally\n{}\n```\n{}", builtin.signature, builtin.docs)
}
