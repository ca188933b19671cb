//! MCP (Model Context Protocol) on typed-rpc.

pub mod api;
pub mod client;
pub mod error;
pub mod files;
pub mod fixtures;
pub mod http;
pub mod server;
pub mod types;
mod version;

pub use api::{McpHost, McpHostClient, McpServer, McpServerClient, Outcome};
pub use version::ProtocolVersion;
