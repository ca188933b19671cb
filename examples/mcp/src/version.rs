//! The protocol's versions, and which generation each belongs to.

use std::fmt;

/// A version of the protocol this crate speaks.
///
/// The classic generation (2024-11-05 to 2025-11-25) opens a session with
/// `initialize`; the 2026-07-28 generation is stateless: every request
/// carries its version and the client's capabilities in `_meta`.
///
/// ```
/// use typed_rpc_mcp::ProtocolVersion;
///
/// assert_eq!(ProtocolVersion::parse("2025-06-18"), Some(ProtocolVersion::V2025_06_18));
/// assert!(ProtocolVersion::V2026_07_28.is_stateless());
/// // A client asking for a version we do not speak is offered our newest classic one.
/// assert_eq!(ProtocolVersion::negotiate("2024-01-01"), ProtocolVersion::V2025_11_25);
/// assert_eq!(ProtocolVersion::negotiate("2025-03-26"), ProtocolVersion::V2025_03_26);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first: HTTP+SSE, no structured tool output.
    V2024_11_05,
    /// Streamable HTTP, tool annotations, audio.
    V2025_03_26,
    /// Structured tool output, elicitation, no batches.
    V2025_06_18,
    /// Icons, URL elicitation, sampling with tools.
    V2025_11_25,
    /// Stateless: `server/discover`, per-request `_meta`, input requests in results.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest version of the classic (`initialize`) generation.
    pub const LATEST_CLASSIC: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The newest version.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The version named `text`, if this crate speaks it.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Its name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether it is of the stateless generation (no `initialize`).
    pub const fn is_stateless(self) -> bool {
        matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// The answer to an `initialize` asking for `requested`: the same
    /// version when it is a classic one this crate speaks, else the newest
    /// classic one (the client then decides whether it can speak that).
    pub fn negotiate(requested: &str) -> Self {
        match Self::parse(requested) {
            Some(version) if !version.is_stateless() => version,
            _ => Self::LATEST_CLASSIC,
        }
    }

    /// The names of every version of the given generation, oldest first.
    pub fn names(stateless: bool) -> Vec<String> {
        Self::ALL
            .into_iter()
            .filter(|v| v.is_stateless() == stateless)
            .map(|v| v.as_str().to_owned())
            .collect()
    }

    /// The names of every version, newest first, as `server/discover` and
    /// `-32022` list them.
    pub fn all_names() -> Vec<String> {
        Self::ALL
            .iter()
            .rev()
            .map(|v| v.as_str().to_owned())
            .collect()
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
