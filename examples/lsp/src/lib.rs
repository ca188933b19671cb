//! Language servers on typed-rpc, and Tally, a small language served by one.
//!
//! What every language server needs and the protocol leaves to its
//! authors:
//!
//! - [`Document`] and [`DocumentStore`]: the open documents as the
//!   client's `didOpen`/`didChange`/`didClose` describe them, incremental
//!   edits applied in order, and positions converted both ways in the
//!   negotiated [`PositionEncoding`] (UTF-16 by default, UTF-8 or UTF-32 when
//!   the client offers them), so a server works in byte offsets and never
//!   counts UTF-16 units by hand;
//! - [`Lifecycle`]: `initialize`, `shutdown` and `exit` as the protocol
//!   orders them, enforced in front of every handler;
//! - [`protocol`]: the protocol's methods as `#[rpc]` traits, in both
//!   directions, with the ordering each message needs.
//!
//! And one server built from them: [`tally`], the language, and
//! [`server::TallyServer`], which the `tally-lsp` binary serves on stdio.

mod document;
mod encoding;
mod lifecycle;
pub mod protocol;
pub mod server;
mod store;
pub mod tally;

pub use document::Document;
pub use encoding::PositionEncoding;
pub use lifecycle::{Lifecycle, Phase, SERVER_NOT_INITIALIZED};
pub use store::{DocumentStore, StoreError};
