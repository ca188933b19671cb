//! Blocks and headers as `eth_getBlockBy*` and `newHeads` show them.

use alloy_consensus::Header;
use alloy_eips::eip4895::Withdrawal;
use alloy_primitives::{Address, B64, B256, Bloom, Bytes, U256};
use serde::{Deserialize, Serialize};

use super::RpcTransaction;

/// A header with its hash: the `newHeads` item, and the fields of a block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcHeader {
    /// keccak256 of the header's RLP.
    pub hash: B256,
    pub parent_hash: B256,
    pub sha3_uncles: B256,
    pub miner: Address,
    pub state_root: B256,
    pub transactions_root: B256,
    pub receipts_root: B256,
    pub logs_bloom: Bloom,
    pub difficulty: U256,
    #[serde(with = "alloy_serde::quantity")]
    pub number: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub gas_limit: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub gas_used: u64,
    #[serde(with = "alloy_serde::quantity")]
    pub timestamp: u64,
    pub extra_data: Bytes,
    pub mix_hash: B256,
    pub nonce: B64,
    /// EIP-1559's base fee; every block of this chain has one.
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub base_fee_per_gas: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawals_root: Option<B256>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub blob_gas_used: Option<u64>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub excess_blob_gas: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_beacon_block_root: Option<B256>,
}

impl RpcHeader {
    /// The API's view of a consensus header whose hash is `hash`.
    pub fn new(header: &Header, hash: B256) -> Self {
        Self {
            hash,
            parent_hash: header.parent_hash,
            sha3_uncles: header.ommers_hash,
            miner: header.beneficiary,
            state_root: header.state_root,
            transactions_root: header.transactions_root,
            receipts_root: header.receipts_root,
            logs_bloom: header.logs_bloom,
            difficulty: header.difficulty,
            number: header.number,
            gas_limit: header.gas_limit,
            gas_used: header.gas_used,
            timestamp: header.timestamp,
            extra_data: header.extra_data.clone(),
            mix_hash: header.mix_hash,
            nonce: header.nonce,
            base_fee_per_gas: header.base_fee_per_gas,
            withdrawals_root: header.withdrawals_root,
            blob_gas_used: header.blob_gas_used,
            excess_blob_gas: header.excess_blob_gas,
            parent_beacon_block_root: header.parent_beacon_block_root,
        }
    }
}

/// A block: its header's fields, its transactions (hashes or whole), no uncles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    #[serde(flatten)]
    pub header: RpcHeader,
    /// The block's RLP length in bytes.
    #[serde(with = "alloy_serde::quantity")]
    pub size: u64,
    /// Always zero: this chain never had proof of work.
    pub total_difficulty: U256,
    pub transactions: BlockTransactions,
    pub uncles: Vec<B256>,
    pub withdrawals: Vec<Withdrawal>,
}

/// A block's transactions: their hashes, or the transactions themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BlockTransactions {
    /// `eth_getBlockBy*(_, false)`.
    Hashes(Vec<B256>),
    /// `eth_getBlockBy*(_, true)`.
    Full(Vec<RpcTransaction>),
}
