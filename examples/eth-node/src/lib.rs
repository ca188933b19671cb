//! An Ethereum-style development node on typed-rpc: a small anvil.
//!
//! An in-memory chain (chain id 31337 unless told otherwise) whose
//! development accounts come from a BIP-39 mnemonic, with EIP-1559 base
//! fees, contracts run on revm, a block per transaction or one per interval,
//! and the `eth_`, `net_` and `web3_` APIs as `#[rpc]` traits served over
//! HTTP and WebSocket on one port (subscriptions on WebSocket).
//!
//! ```
//! use typed_rpc::client::InProcess;
//! use typed_rpc_eth_node::api::EthApiClient;
//! use typed_rpc_eth_node::{Node, NodeConfig};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let node = Node::new(NodeConfig::dev(31337)?);
//! let eth = EthApiClient::new(InProcess::new(node.router()?));
//! assert_eq!(eth.chain_id().await?.to::<u64>(), 31337);
//! let first = node.accounts()[0].address;
//! let balance = eth.get_balance(first, None).await?;
//! assert_eq!(balance, typed_rpc_eth_node::units::ether(10_000));
//! # Ok(()) }
//! ```

pub mod accounts;
pub mod api;
pub mod chain;
pub mod error;
mod node;
pub mod types;
pub mod units;

pub use node::{Node, NodeConfig};
