//! `eth_feeHistory`'s block count and answer.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// How many blocks `eth_feeHistory` covers: a quantity (`"0x4"`), or a
/// plain number as some clients send it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCount(pub u64);

impl Serialize for BlockCount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        alloy_serde::quantity::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for BlockCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;

        impl Visitor<'_> for CountVisitor {
            type Value = BlockCount;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a block count: a hex quantity or a number")
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<BlockCount, E> {
                Ok(BlockCount(value))
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<BlockCount, E> {
                let digits = value
                    .strip_prefix("0x")
                    .ok_or_else(|| E::custom(format!("{value:?} is not a hex quantity")))?;
                u64::from_str_radix(digits, 16)
                    .map(BlockCount)
                    .map_err(|_| E::custom(format!("{value:?} is not a hex quantity")))
            }
        }

        deserializer.deserialize_any(CountVisitor)
    }
}

/// Base fees and gas use of a range of blocks, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeeHistory {
    #[serde(with = "alloy_serde::quantity")]
    pub oldest_block: u64,
    /// One per block, plus the base fee of the block after the newest.
    #[serde(with = "alloy_serde::quantity::vec")]
    pub base_fee_per_gas: Vec<u128>,
    pub gas_used_ratio: Vec<f64>,
    /// No blobs on this chain: zeros, one more than the blocks.
    #[serde(with = "alloy_serde::quantity::vec")]
    pub base_fee_per_blob_gas: Vec<u128>,
    pub blob_gas_used_ratio: Vec<f64>,
    /// The priority fee at each requested percentile, per block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<Vec<Vec<RewardQuantity>>>,
}

/// A priority fee in `reward`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewardQuantity(#[serde(with = "alloy_serde::quantity")] pub u128);
