//! A2A (Agent2Agent) 1.0 agents on typed-rpc.
//!
//! - [`types`]: the protocol's data, as proto JSON writes and reads it;
//! - [`A2a`]: the JSON-RPC binding as an `#[rpc]` trait, with [`A2aClient`]
//!   as the client and [`A2aError`] as its typed errors;
//! - [`server`]: the side that keeps tasks, so an agent author writes only
//!   an [`server::AgentExecutor`];
//! - [`client`]: a client for an agent's card;
//! - [`http`]: the HTTP app (the card, the endpoint, bearer auth, CORS);
//! - [`text_agent`]: the example agent the `text-agent` binary serves;
//! - [`tck_agent`]: the A2A TCK's scenarios, `text-agent --tck`.

pub mod api;
pub mod client;
pub mod error;
pub mod http;
pub mod server;
pub mod tck_agent;
pub mod text_agent;
pub mod types;

pub use api::{A2a, A2aClient, A2aService};
pub use error::A2aError;

/// The A2A version this crate speaks, as in `A2A-Version` and `protocolVersion`.
pub const PROTOCOL_VERSION: &str = "1.0";
