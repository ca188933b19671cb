//! MCP (Model Context Protocol) servers and clients on typed-rpc.
//!
//! | module | what |
//! |---|---|
//! | [`types`] | the protocol's data, 2024-11-05 to 2026-07-28, `_meta` carried through |
//! | [`api`] | the two sides as `#[rpc]` traits: [`McpServer`] (its [`McpServerClient`] is the typed client of any server) and [`McpHost`] (its [`McpHostClient`] is how a tool calls the host) |
//! | [`server`] | [`server::Server`]: tools and prompts from `#[rpc]` traits, resources, both generations |
//! | [`http`] | Streamable HTTP |
//! | [`client`] | [`client::Client`]: spawns or reaches a server, speaks its generation, answers its requests |
//! | [`files`] | the files of a directory as tools, resources and prompts (`mcp-server`) |
//! | [`fixtures`] | what the conformance suite exercises, and the tutorial tools (`mcp-server --fixtures`) |
//! | [`error`] | MCP's error codes |
#![doc = include_str!("../README.md")]

pub mod api;
pub mod client;
pub mod error;
pub mod files;
pub mod fixtures;
pub mod http;
mod mirrored;
pub mod server;
pub mod types;
mod version;

pub use api::{McpHost, McpHostClient, McpServer, McpServerClient, Outcome};
pub use version::ProtocolVersion;
