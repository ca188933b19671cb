//! `impl EthApi for Node`: reads of the chain here, the rest in the sibling modules.

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use futures_util::Stream;
use revm::DatabaseRef;
use typed_rpc::RpcResult;

use super::Node;
use crate::api::EthApi;
use crate::chain::{account, rpc_transaction};
use crate::error::invalid_input;
use crate::types::{
    Block, BlockCount, BlockId, BlockNumberOrTag, CallRequest, FeeHistory, LogFilter, RpcLog,
    RpcReceipt, RpcTransaction, SubscriptionItem, SubscriptionKind,
};

/// The widest block range one `eth_getLogs` may cover.
const MAX_LOG_RANGE: u64 = 10_000;

impl EthApi for Node {
    async fn chain_id(&self) -> RpcResult<U64> {
        Ok(U64::from(self.read().chain_id()))
    }

    async fn block_number(&self) -> RpcResult<U64> {
        Ok(U64::from(self.read().head().header.number))
    }

    async fn accounts(&self) -> RpcResult<Vec<Address>> {
        Ok(self
            .accounts()
            .iter()
            .map(|account| account.address)
            .collect())
    }

    async fn syncing(&self) -> RpcResult<bool> {
        Ok(false)
    }

    async fn get_balance(&self, address: Address, block: Option<BlockId>) -> RpcResult<U256> {
        self.with_state(block, |state| {
            account(state, &address).map_or(U256::ZERO, |info| info.balance)
        })
    }

    async fn get_transaction_count(
        &self,
        address: Address,
        block: Option<BlockId>,
    ) -> RpcResult<U64> {
        if block == Some(BlockId::Number(BlockNumberOrTag::Pending)) {
            return Ok(U64::from(self.read().next_nonce(&address)));
        }
        self.with_state(block, |state| {
            U64::from(account(state, &address).map_or(0, |info| info.nonce))
        })
    }

    async fn get_code(&self, address: Address, block: Option<BlockId>) -> RpcResult<Bytes> {
        self.with_state(block, |state| match account(state, &address) {
            Some(info) => state
                .code_by_hash_ref(info.code_hash)
                .unwrap_or_default()
                .original_bytes(),
            None => Bytes::new(),
        })
    }

    async fn get_storage_at(
        &self,
        address: Address,
        slot: U256,
        block: Option<BlockId>,
    ) -> RpcResult<B256> {
        self.with_state(block, |state| {
            B256::from(state.storage_ref(address, slot).unwrap_or_default())
        })
    }

    async fn gas_price(&self) -> RpcResult<U256> {
        Ok(U256::from(self.suggested_gas_price()))
    }

    async fn max_priority_fee_per_gas(&self) -> RpcResult<U256> {
        Ok(U256::from(super::fees::PRIORITY_FEE))
    }

    async fn fee_history(
        &self,
        block_count: BlockCount,
        newest_block: BlockNumberOrTag,
        reward_percentiles: Option<Vec<f64>>,
    ) -> RpcResult<FeeHistory> {
        self.fee_history_of(block_count.0, newest_block, reward_percentiles.as_deref())
    }

    async fn get_block_by_number(
        &self,
        number: BlockNumberOrTag,
        full: bool,
    ) -> RpcResult<Option<Block>> {
        let block = self.read().by_tag(number).cloned();
        Ok(block.map(|block| block.rpc_block(full)))
    }

    async fn get_block_by_hash(&self, hash: B256, full: bool) -> RpcResult<Option<Block>> {
        let block = self.read().by_hash(&hash).cloned();
        Ok(block.map(|block| block.rpc_block(full)))
    }

    async fn get_block_transaction_count_by_number(
        &self,
        number: BlockNumberOrTag,
    ) -> RpcResult<Option<U64>> {
        let block = self.read().by_tag(number).cloned();
        Ok(block.map(|block| U64::from(block.transactions.len())))
    }

    async fn call(&self, request: CallRequest, block: Option<BlockId>) -> RpcResult<Bytes> {
        self.run_call(request, block).await
    }

    async fn estimate_gas(&self, request: CallRequest, block: Option<BlockId>) -> RpcResult<U64> {
        self.run_estimate(request, block).await.map(U64::from)
    }

    async fn send_raw_transaction(&self, raw: Bytes) -> RpcResult<B256> {
        let tx = crate::chain::decode(&raw)?;
        self.submit(tx)
    }

    async fn send_transaction(&self, request: CallRequest) -> RpcResult<B256> {
        self.sign_and_submit(request).await
    }

    async fn get_transaction_by_hash(&self, hash: B256) -> RpcResult<Option<RpcTransaction>> {
        let chain = self.read();
        if let Some((block, index)) = chain.transaction(&hash) {
            return Ok(Some(block.rpc_transaction(index)));
        }
        Ok(chain.pooled(&hash).map(|tx| rpc_transaction(tx, None)))
    }

    async fn get_transaction_receipt(&self, hash: B256) -> RpcResult<Option<RpcReceipt>> {
        let chain = self.read();
        Ok(chain
            .transaction(&hash)
            .map(|(block, index)| block.rpc_receipt(index)))
    }

    async fn get_logs(&self, filter: LogFilter) -> RpcResult<Vec<RpcLog>> {
        let blocks = {
            let chain = self.read();
            if let Some(hash) = filter.block_hash {
                if filter.from_block.is_some() || filter.to_block.is_some() {
                    return Err(invalid_input(
                        "blockHash cannot be combined with fromBlock or toBlock",
                    ));
                }
                let block = chain
                    .by_hash(&hash)
                    .ok_or_else(|| crate::error::not_found("unknown block"))?;
                vec![block.clone()]
            } else {
                let head = chain.head().header.number;
                let number =
                    |tag: Option<BlockNumberOrTag>| match chain.by_tag(tag.unwrap_or_default()) {
                        Some(block) => block.header.number,
                        None => head + 1, // past the head: nothing there yet
                    };
                let (from, to) = (number(filter.from_block), number(filter.to_block).min(head));
                if from <= to && to - from >= MAX_LOG_RANGE {
                    return Err(crate::error::limit_exceeded(format!(
                        "query exceeds the limit of {MAX_LOG_RANGE} blocks"
                    )));
                }
                (from..=to)
                    .filter_map(|number| chain.by_number(number).cloned())
                    .collect()
            }
        };
        Ok(blocks
            .iter()
            .flat_map(|block| block.matching_logs(&filter))
            .collect())
    }

    async fn subscribe(
        &self,
        kind: SubscriptionKind,
        filter: Option<LogFilter>,
    ) -> RpcResult<impl Stream<Item = RpcResult<SubscriptionItem>> + Send + 'static> {
        Ok(self.subscription(kind, filter.unwrap_or_default()))
    }
}
