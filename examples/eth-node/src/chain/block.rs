//! A mined block: header, transactions with their outcomes, the state after
//! it, and how the API shows each of them.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::{Header, Transaction, TxEnvelope};
use alloy_eips::Typed2718;
use alloy_primitives::{Address, B256, Bloom, BloomInput, Log, U256};

use std::sync::OnceLock;

use crate::types::{
    Block, BlockTransactions, LogFilter, RpcHeader, RpcLog, RpcReceipt, RpcTransaction, Serialized,
};

/// A block of the chain, immutable once mined.
#[derive(Debug)]
pub struct MinedBlock {
    pub header: Header,
    pub hash: B256,
    /// Its RLP length, for `size`.
    pub size: u64,
    pub transactions: Vec<MinedTx>,
    /// The header as `newHeads` sends it, made for the first subscriber.
    pub(super) header_json: OnceLock<Serialized<RpcHeader>>,
}

/// A transaction in a block, and what running it did.
#[derive(Debug)]
pub struct MinedTx {
    pub tx: Recovered<TxEnvelope>,
    pub outcome: Outcome,
}

/// The receipt's facts about one transaction.
#[derive(Debug)]
pub struct Outcome {
    pub success: bool,
    pub gas_used: u64,
    pub cumulative_gas_used: u64,
    pub logs: Vec<Log>,
    pub logs_bloom: Bloom,
    pub contract_address: Option<Address>,
}

/// Where a transaction was mined, for its API view.
#[derive(Clone, Copy)]
pub struct Location {
    pub block_hash: B256,
    pub block_number: u64,
    pub index: u64,
    pub base_fee: Option<u64>,
}

impl MinedBlock {
    /// The header as `newHeads` and blocks show it.
    pub fn rpc_header(&self) -> RpcHeader {
        RpcHeader::new(&self.header, self.hash)
    }

    /// The header as `newHeads` sends it, serialized once for every subscriber.
    pub fn shared_header(&self) -> Serialized<RpcHeader> {
        self.header_json
            .get_or_init(|| Serialized::new(self.rpc_header()))
            .clone()
    }

    /// The block, with transaction hashes or (`full`) whole transactions.
    pub fn rpc_block(&self, full: bool) -> Block {
        let transactions = if full {
            let txs = (0..self.transactions.len()).map(|index| self.rpc_transaction(index));
            BlockTransactions::Full(txs.collect())
        } else {
            BlockTransactions::Hashes(
                self.transactions
                    .iter()
                    .map(|mined| *mined.tx.tx_hash())
                    .collect(),
            )
        };
        Block {
            header: self.rpc_header(),
            size: self.size,
            total_difficulty: U256::ZERO,
            transactions,
            uncles: Vec::new(),
            withdrawals: Vec::new(),
        }
    }

    fn location(&self, index: usize) -> Location {
        Location {
            block_hash: self.hash,
            block_number: self.header.number,
            index: index as u64,
            base_fee: self.header.base_fee_per_gas,
        }
    }

    /// Transaction `index` of the block.
    pub fn rpc_transaction(&self, index: usize) -> RpcTransaction {
        rpc_transaction(&self.transactions[index].tx, Some(self.location(index)))
    }

    /// The receipt of transaction `index`.
    pub fn rpc_receipt(&self, index: usize) -> RpcReceipt {
        let MinedTx { tx, outcome } = &self.transactions[index];
        let first_log = self.transactions[..index]
            .iter()
            .map(|mined| mined.outcome.logs.len())
            .sum();
        RpcReceipt {
            transaction_hash: *tx.tx_hash(),
            transaction_index: index as u64,
            block_hash: self.hash,
            block_number: self.header.number,
            from: tx.signer(),
            to: tx.to(),
            contract_address: outcome.contract_address,
            gas_used: outcome.gas_used,
            cumulative_gas_used: outcome.cumulative_gas_used,
            effective_gas_price: tx.effective_gas_price(self.header.base_fee_per_gas),
            logs: self.rpc_logs_of(index, first_log).collect(),
            logs_bloom: outcome.logs_bloom,
            tx_type: tx.ty(),
            status: u8::from(outcome.success),
        }
    }

    /// The logs of transaction `index`, the first of them at `first_log` in the block.
    fn rpc_logs_of(&self, index: usize, first_log: usize) -> impl Iterator<Item = RpcLog> + '_ {
        let MinedTx { tx, outcome } = &self.transactions[index];
        outcome
            .logs
            .iter()
            .enumerate()
            .map(move |(offset, log)| RpcLog {
                address: log.address,
                topics: log.topics().to_vec(),
                data: log.data.data.clone(),
                block_hash: self.hash,
                block_number: self.header.number,
                block_timestamp: self.header.timestamp,
                transaction_hash: *tx.tx_hash(),
                transaction_index: index as u64,
                log_index: (first_log + offset) as u64,
                removed: false,
            })
    }

    /// The block's logs that pass `filter`'s address and topic tests, in order.
    pub fn matching_logs<'a>(&'a self, filter: &'a LogFilter) -> impl Iterator<Item = RpcLog> + 'a {
        // The bloom rules out most blocks without looking at a log.
        let candidates = if bloom_may_match(&self.header.logs_bloom, filter) {
            self.transactions.len()
        } else {
            0
        };
        let mut first_log = 0;
        self.transactions[..candidates]
            .iter()
            .enumerate()
            .flat_map(move |(index, mined)| {
                let first = first_log;
                first_log += mined.outcome.logs.len();
                self.rpc_logs_of(index, first)
            })
            .filter(|log| filter.matches(&log.address, &log.topics))
    }
}

/// Whether a block with `bloom` may hold a log that passes `filter`.
fn bloom_may_match(bloom: &Bloom, filter: &LogFilter) -> bool {
    let has = |bytes: &[u8]| bloom.contains_input(BloomInput::Raw(bytes));
    let address_ok = filter.address.as_ref().is_none_or(|wanted| {
        wanted
            .as_slice()
            .iter()
            .any(|address| has(address.as_slice()))
    });
    let topics_ok = filter
        .topics
        .iter()
        .flatten()
        .flatten()
        .all(|wanted| wanted.as_slice().iter().any(|topic| has(topic.as_slice())));
    address_ok && topics_ok
}

/// The API's view of a signed transaction, mined at `location` or pending.
pub fn rpc_transaction(tx: &Recovered<TxEnvelope>, location: Option<Location>) -> RpcTransaction {
    let signature = tx.signature();
    let parity = u8::from(signature.v());
    let legacy = tx.is_legacy();
    let v = match (legacy, tx.chain_id()) {
        (true, Some(chain_id)) => chain_id * 2 + 35 + u64::from(parity),
        (true, None) => 27 + u64::from(parity),
        (false, _) => u64::from(parity),
    };
    let base_fee = location.and_then(|location| location.base_fee);
    RpcTransaction {
        hash: *tx.tx_hash(),
        tx_type: tx.ty(),
        nonce: tx.nonce(),
        block_hash: location.map(|location| location.block_hash),
        block_number: location.map(|location| location.block_number),
        transaction_index: location.map(|location| location.index),
        from: tx.signer(),
        to: tx.to(),
        value: tx.value(),
        gas: tx.gas_limit(),
        gas_price: match location {
            Some(_) => tx.effective_gas_price(base_fee),
            None => tx.max_fee_per_gas(),
        },
        max_fee_per_gas: (!legacy && !tx.is_eip2930()).then(|| tx.max_fee_per_gas()),
        max_priority_fee_per_gas: if legacy || tx.is_eip2930() {
            None
        } else {
            tx.max_priority_fee_per_gas()
        },
        input: tx.input().clone(),
        chain_id: tx.chain_id(),
        access_list: tx.access_list().cloned(),
        v,
        r: signature.r(),
        s: signature.s(),
        y_parity: (!legacy).then_some(parity),
    }
}
