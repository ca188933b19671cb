//! Fee suggestions and `eth_feeHistory`.

use alloy_consensus::Transaction;
use alloy_eips::eip1559::BaseFeeParams;
use typed_rpc::RpcResult;

use super::Node;
use crate::error::invalid_input;
use crate::types::fee::RewardQuantity;
use crate::types::{BlockNumberOrTag, FeeHistory};

/// The tip suggested for EIP-1559 transactions: 1 gwei, as anvil and geth's dev mode.
pub const PRIORITY_FEE: u128 = 1_000_000_000;

/// The most blocks one `eth_feeHistory` covers, as geth.
const MAX_FEE_HISTORY: u64 = 1024;

impl Node {
    /// The next block's base fee plus the suggested tip.
    pub(super) fn suggested_gas_price(&self) -> u128 {
        u128::from(self.next_base_fee()) + PRIORITY_FEE
    }

    /// The base fee the next block will have.
    pub(super) fn next_base_fee(&self) -> u64 {
        let chain = self.read();
        chain
            .head()
            .header
            .next_block_base_fee(BaseFeeParams::ethereum())
            .unwrap_or_default()
    }

    pub(super) fn fee_history_of(
        &self,
        count: u64,
        newest: BlockNumberOrTag,
        percentiles: Option<&[f64]>,
    ) -> RpcResult<FeeHistory> {
        if let Some(percentiles) = percentiles {
            let ascending = percentiles.windows(2).all(|pair| pair[0] <= pair[1]);
            if !ascending || percentiles.iter().any(|p| !(0.0..=100.0).contains(p)) {
                return Err(invalid_input(
                    "reward percentiles must ascend within 0..=100",
                ));
            }
        }
        let chain = self.read();
        let newest = chain
            .by_tag(newest)
            .ok_or_else(|| crate::error::not_found("header not found"))?;
        let newest_number = newest.header.number;
        let count = count.min(MAX_FEE_HISTORY).min(newest_number + 1);
        let oldest = newest_number + 1 - count;
        let blocks: Vec<_> = (oldest..=newest_number)
            .filter_map(|number| chain.by_number(number))
            .collect();
        let mut base_fee_per_gas: Vec<u128> = blocks
            .iter()
            .map(|block| u128::from(block.header.base_fee_per_gas.unwrap_or_default()))
            .collect();
        let next = newest
            .header
            .next_block_base_fee(BaseFeeParams::ethereum())
            .unwrap_or_default();
        base_fee_per_gas.push(u128::from(next));
        let gas_used_ratio = blocks
            .iter()
            .map(|block| block.header.gas_used as f64 / block.header.gas_limit as f64)
            .collect::<Vec<_>>();
        let reward = percentiles.map(|percentiles| {
            blocks
                .iter()
                .map(|block| block_rewards(block, percentiles))
                .collect()
        });
        Ok(FeeHistory {
            oldest_block: if count == 0 { newest_number } else { oldest },
            base_fee_per_gas,
            base_fee_per_blob_gas: vec![1; blocks.len() + 1],
            blob_gas_used_ratio: vec![0.0; blocks.len()],
            gas_used_ratio,
            reward,
        })
    }
}

/// The tips paid at each percentile of a block's gas, as geth reckons them:
/// transactions by tip, each weighted by the gas it used.
fn block_rewards(block: &crate::chain::MinedBlock, percentiles: &[f64]) -> Vec<RewardQuantity> {
    let base_fee = block.header.base_fee_per_gas;
    let mut tips: Vec<(u128, u64)> = block
        .transactions
        .iter()
        .map(|mined| {
            let tip = mined
                .tx
                .effective_tip_per_gas(base_fee.unwrap_or_default())
                .unwrap_or_default();
            (tip, mined.outcome.gas_used)
        })
        .collect();
    if tips.is_empty() {
        return vec![RewardQuantity(0); percentiles.len()];
    }
    tips.sort_unstable();
    let total: u64 = tips.iter().map(|(_, gas)| gas).sum();
    percentiles
        .iter()
        .map(|percentile| {
            let threshold = (total as f64 * percentile / 100.0) as u64;
            let mut cumulative = 0;
            let tip = tips
                .iter()
                .find(|(_, gas)| {
                    cumulative += gas;
                    cumulative >= threshold
                })
                .or(tips.last())
                .map_or(0, |(tip, _)| *tip);
            RewardQuantity(tip)
        })
        .collect()
}
