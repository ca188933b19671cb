//! The open documents, kept as the client's `didOpen`, `didChange` and `didClose` describe them.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, Uri,
};

use crate::{Document, PositionEncoding};

/// The documents a client has open, by URI.
///
/// Its methods take the text synchronization notifications as they come,
/// so a server's handlers are one line each; readers get an
/// [`Arc<Document>`] snapshot that a later change does not touch (the change
/// copies the text if a reader still holds the old one).
///
/// ```
/// use lsp_types::{DidOpenTextDocumentParams, TextDocumentItem, Uri};
/// use typed_rpc_lsp::{DocumentStore, PositionEncoding};
///
/// let store = DocumentStore::new(PositionEncoding::Utf16);
/// let uri: Uri = "file:///notes.tally".parse().unwrap();
/// store.open(DidOpenTextDocumentParams {
///     text_document: TextDocumentItem::new(uri.clone(), "tally".into(), 1, "let x = 1".into()),
/// });
/// assert_eq!(store.get(&uri).unwrap().text(), "let x = 1");
/// ```
#[derive(Debug, Default)]
pub struct DocumentStore {
    encoding: Mutex<PositionEncoding>,
    documents: Mutex<HashMap<Uri, Arc<Document>>>,
}

/// A change the store could not apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The change names a document that is not open.
    NotOpen(Uri),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NotOpen(uri) => write!(f, "{} is not open", uri.as_str()),
        }
    }
}

impl std::error::Error for StoreError {}

impl DocumentStore {
    /// An empty store whose documents count positions in `encoding`.
    pub fn new(encoding: PositionEncoding) -> Self {
        DocumentStore {
            encoding: Mutex::new(encoding),
            documents: Mutex::default(),
        }
    }

    /// Sets the encoding of the documents opened from now on: the one
    /// `initialize` negotiated.
    pub fn set_encoding(&self, encoding: PositionEncoding) {
        *lock(&self.encoding) = encoding;
    }

    /// The encoding positions count in.
    pub fn encoding(&self) -> PositionEncoding {
        *lock(&self.encoding)
    }

    /// Opens (or reopens) a document: `textDocument/didOpen`.
    pub fn open(&self, params: DidOpenTextDocumentParams) -> Arc<Document> {
        let item = params.text_document;
        let document = Arc::new(Document::new(item.text, item.version, self.encoding()));
        lock(&self.documents).insert(item.uri, document.clone());
        document
    }

    /// Applies a `textDocument/didChange`; returns the document as it now is.
    pub fn change(&self, params: DidChangeTextDocumentParams) -> Result<Arc<Document>, StoreError> {
        let uri = params.text_document.uri;
        let mut documents = lock(&self.documents);
        let Some(document) = documents.get_mut(&uri) else {
            return Err(StoreError::NotOpen(uri));
        };
        Arc::make_mut(document).apply(&params.content_changes, params.text_document.version);
        Ok(document.clone())
    }

    /// Forgets a document: `textDocument/didClose`. Returns whether it was open.
    pub fn close(&self, params: &DidCloseTextDocumentParams) -> bool {
        lock(&self.documents)
            .remove(&params.text_document.uri)
            .is_some()
    }

    /// The document at `uri` as it now is, if it is open.
    pub fn get(&self, uri: &Uri) -> Option<Arc<Document>> {
        lock(&self.documents).get(uri).cloned()
    }

    /// Every open document, ordered by URI.
    pub fn all(&self) -> Vec<(Uri, Arc<Document>)> {
        let mut all: Vec<_> = lock(&self.documents)
            .iter()
            .map(|(uri, document)| (uri.clone(), document.clone()))
            .collect();
        all.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        all
    }
}

/// The lock's value; a panic elsewhere while it was held left nothing half
/// done here (each change is applied whole before the guard is released).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{
        Position, Range, TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
        VersionedTextDocumentIdentifier,
    };

    fn uri() -> Uri {
        "file:///a.tally".parse().unwrap()
    }

    #[test]
    fn a_reader_keeps_its_snapshot_across_a_change() {
        let store = DocumentStore::new(PositionEncoding::Utf16);
        store.open(DidOpenTextDocumentParams {
            text_document: TextDocumentItem::new(uri(), "tally".into(), 1, "ab".into()),
        });
        let before = store.get(&uri()).unwrap();
        let after = store
            .change(DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier::new(uri(), 2),
                content_changes: vec![TextDocumentContentChangeEvent {
                    range: Some(Range::new(Position::new(0, 1), Position::new(0, 1))),
                    range_length: None,
                    text: "😀".into(),
                }],
            })
            .unwrap();
        assert_eq!((before.text(), before.version()), ("ab", 1));
        assert_eq!((after.text(), after.version()), ("a😀b", 2));
        assert!(store.close(&DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier::new(uri()),
        }));
        assert!(store.get(&uri()).is_none());
    }

    #[test]
    fn a_change_to_a_closed_document_is_an_error() {
        let store = DocumentStore::default();
        let err = store
            .change(DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier::new(uri(), 2),
                content_changes: Vec::new(),
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "file:///a.tally is not open");
    }
}
