//! The transaction object of `eth_call` and `eth_estimateGas`.

use alloy_eips::eip2930::AccessList;
use alloy_primitives::{Address, Bytes, U256};
use serde::{Deserialize, Serialize};

/// An unsigned transaction to simulate; every field may be left out.
///
/// Clients send the calldata as `input` or as `data` (some send both, equal).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Address>,
    /// Absent for a contract creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Address>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub gas: Option<u64>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub gas_price: Option<u128>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<U256>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Bytes>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub nonce: Option<u64>,
    #[serde(
        default,
        with = "alloy_serde::quantity::opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub chain_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_list: Option<AccessList>,
}

impl CallRequest {
    /// The calldata, from `input` or `data`; an error when both are given and differ.
    pub fn calldata(&self) -> Result<Bytes, &'static str> {
        match (&self.input, &self.data) {
            (Some(input), Some(data)) if input != data => {
                Err("both \"data\" and \"input\" are set and not equal")
            }
            (Some(bytes), _) | (None, Some(bytes)) => Ok(bytes.clone()),
            (None, None) => Ok(Bytes::new()),
        }
    }
}
