//! Receipts and the logs they carry.

use alloy_primitives::{Address, B256, Bloom, Bytes};
use serde::{Deserialize, Serialize};

/// What `eth_getTransactionReceipt` answers once the transaction is mined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcReceipt {
    pub transaction_hash: B256,
    #[serde(with = "alloy_serde::quantity")]
    pub transaction_index: u64,
    pub block_hash: B256,
    #[serde(with = "alloy_serde::quantity")]
    pub block_number: u64,
    pub from: Address,
    /// `null` for a contract creation.
    pub to: Option<Address>,
    /// The created contract's address, else `null`.
    pub contract_address: Option<Address>,
    #[serde(with = "alloy_serde::quantity")]
    pub gas_used: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub cumulative_gas_used: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub effective_gas_price: u128,
    pub logs: Vec<RpcLog>,
    pub logs_bloom: Bloom,
    #[serde(rename = "type", with = "alloy_serde::quantity")]
    pub tx_type: u8,
    /// `0x1` success, `0x0` reverted.
    #[serde(with = "alloy_serde::quantity")]
    pub status: u8,
}

/// A log, with where it was emitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcLog {
    pub address: Address,
    pub topics: Vec<B256>,
    pub data: Bytes,
    pub block_hash: B256,
    #[serde(with = "alloy_serde::quantity")]
    pub block_number: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub block_timestamp: u64,
    pub transaction_hash: B256,
    #[serde(with = "alloy_serde::quantity")]
    pub transaction_index: u64,
    /// The log's position in its block.
    #[serde(with = "alloy_serde::quantity")]
    pub log_index: u64,
    /// Always `false`: this chain never reorganises.
    pub removed: bool,
}
