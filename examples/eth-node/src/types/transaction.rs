//! A transaction as `eth_getTransactionByHash` and full blocks show it.

use alloy_eips::eip2930::AccessList;
use alloy_primitives::{Address, B256, Bytes, U256};
use serde::{Deserialize, Serialize};

/// A signed transaction and where it was mined; `r`, `s` and `v` (and
/// `yParity` for typed ones) rebuild it to its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcTransaction {
    pub hash: B256,
    #[serde(rename = "type", with = "alloy_serde::quantity")]
    pub tx_type: u8,
    #[serde(with = "alloy_serde::quantity")]
    pub nonce: u64,
    pub block_hash: Option<B256>,
    #[serde(with = "alloy_serde::quantity::opt")]
    pub block_number: Option<u64>,
    #[serde(with = "alloy_serde::quantity::opt")]
    pub transaction_index: Option<u64>,
    pub from: Address,
    /// `null` for a contract creation.
    pub to: Option<Address>,
    pub value: U256,
    #[serde(with = "alloy_serde::quantity")]
    pub gas: u64,
    /// The legacy gas price, or what an EIP-1559 transaction paid per gas.
    #[serde(with = "alloy_serde::quantity")]
    pub gas_price: u128,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_fee_per_gas: Option<u128>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_priority_fee_per_gas: Option<u128>,
    pub input: Bytes,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub chain_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_list: Option<AccessList>,
    /// EIP-155's `chainId * 2 + 35 + yParity` for legacy, `yParity` for typed ones.
    #[serde(with = "alloy_serde::quantity")]
    pub v: u64,
    pub r: U256,
    pub s: U256,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub y_parity: Option<u8>,
}
