//! How positions count characters: UTF-16 code units unless client and server agree otherwise.

use lsp_types::{ClientCapabilities, PositionEncodingKind};

/// The unit a [`Position`](lsp_types::Position)'s `character` counts.
///
/// The protocol counts UTF-16 code units unless the client offers another
/// encoding in `general.positionEncodings` and the server picks it in its
/// `capabilities.positionEncoding` (LSP 3.17). [`negotiate`](Self::negotiate)
/// makes that choice; a [`Document`](crate::Document) converts with it.
///
/// ```
/// use lsp_types::{ClientCapabilities, GeneralClientCapabilities, PositionEncodingKind};
/// use typed_rpc_lsp::PositionEncoding;
///
/// // A client that says nothing gets UTF-16, the protocol's default.
/// assert_eq!(PositionEncoding::negotiate(&ClientCapabilities::default()), PositionEncoding::Utf16);
///
/// let offers_utf8 = ClientCapabilities {
///     general: Some(GeneralClientCapabilities {
///         position_encodings: Some(vec![PositionEncodingKind::UTF8, PositionEncodingKind::UTF16]),
///         ..Default::default()
///     }),
///     ..Default::default()
/// };
/// let chosen = PositionEncoding::negotiate(&offers_utf8);
/// assert_eq!(chosen, PositionEncoding::Utf8);
/// assert_eq!(chosen.kind(), PositionEncodingKind::UTF8);
/// assert_eq!('😀'.len_utf16(), 2);
/// assert_eq!((PositionEncoding::Utf16.width('😀'), PositionEncoding::Utf8.width('😀')), (2, 4));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PositionEncoding {
    /// Bytes of UTF-8: what a Rust `str` indexes by.
    Utf8,
    /// UTF-16 code units: the protocol's default, and what JavaScript counts.
    #[default]
    Utf16,
    /// Unicode scalar values: one per `char`.
    Utf32,
}

impl PositionEncoding {
    /// The encoding to use with a client of these capabilities: the first
    /// it lists in `general.positionEncodings` (its order is its
    /// preference, and all three are supported here), UTF-16 when it lists
    /// none of them.
    pub fn negotiate(client: &ClientCapabilities) -> Self {
        client
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_ref())
            .into_iter()
            .flatten()
            .find_map(Self::from_kind)
            .unwrap_or_default()
    }

    /// The encoding `kind` names, if it is one of the three the protocol defines.
    pub fn from_kind(kind: &PositionEncodingKind) -> Option<Self> {
        match kind.as_str() {
            "utf-8" => Some(PositionEncoding::Utf8),
            "utf-16" => Some(PositionEncoding::Utf16),
            "utf-32" => Some(PositionEncoding::Utf32),
            _ => None,
        }
    }

    /// Its name in `capabilities.positionEncoding`.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
            PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
            PositionEncoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    /// How many units `c` counts for.
    pub fn width(self, c: char) -> u32 {
        match self {
            PositionEncoding::Utf8 => c.len_utf8() as u32,
            PositionEncoding::Utf16 => c.len_utf16() as u32,
            PositionEncoding::Utf32 => 1,
        }
    }

    /// How many units `text` counts for.
    pub fn measure(self, text: &str) -> u32 {
        match self {
            PositionEncoding::Utf8 => text.len() as u32,
            PositionEncoding::Utf16 => text.chars().map(char::len_utf16).sum::<usize>() as u32,
            PositionEncoding::Utf32 => text.chars().count() as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::GeneralClientCapabilities;

    fn offering(kinds: &[&'static str]) -> ClientCapabilities {
        ClientCapabilities {
            general: Some(GeneralClientCapabilities {
                position_encodings: Some(
                    kinds
                        .iter()
                        .map(|kind| PositionEncodingKind::new(kind))
                        .collect(),
                ),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_clients_first_known_encoding_is_chosen() {
        use PositionEncoding::*;
        assert_eq!(
            PositionEncoding::negotiate(&offering(&["utf-32", "utf-8"])),
            Utf32
        );
        assert_eq!(
            PositionEncoding::negotiate(&offering(&["utf-16", "utf-8"])),
            Utf16
        );
        assert_eq!(
            PositionEncoding::negotiate(&offering(&["latin-1", "utf-8"])),
            Utf8
        );
        assert_eq!(PositionEncoding::negotiate(&offering(&["latin-1"])), Utf16);
        assert_eq!(PositionEncoding::negotiate(&offering(&[])), Utf16);
    }

    #[test]
    fn text_is_measured_in_each_unit() {
        // e + a combining acute, a CJK ideograph, an astral emoji.
        let text = "e\u{301}価😀";
        assert_eq!(PositionEncoding::Utf8.measure(text), 1 + 2 + 3 + 4);
        assert_eq!(PositionEncoding::Utf16.measure(text), 1 + 1 + 1 + 2);
        assert_eq!(PositionEncoding::Utf32.measure(text), 4);
    }
}
