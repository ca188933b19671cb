//! Mining: transactions run on the parent's state into a new block with real roots and hash.
//!
//! In two steps, so that a caller can look at the outcome before the chain
//! takes it: [`execute`] runs what fits of the offered transactions on the
//! state as of the parent, changing nothing; [`seal`] records the changes
//! in the history and gives the block its roots and hash.

use alloy_consensus::proofs::{calculate_receipt_root, calculate_transaction_root};
use alloy_consensus::transaction::Recovered;
use alloy_consensus::{
    BlockBody, EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Eip658Value, Header, Receipt,
    ReceiptEnvelope, ReceiptWithBloom, Transaction, TxEnvelope,
};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip4895::Withdrawals;
use alloy_primitives::{B256, Bloom, logs_bloom};
use alloy_rlp::Encodable;
use revm::database::{Cache, CacheDB};

use super::block::{MinedBlock, MinedTx, Outcome};
use super::evm;
use super::history::History;

/// A block run but not yet part of the chain.
pub struct Executed {
    /// Everything but the roots, the gas used and the bloom.
    header: Header,
    pub included: Vec<MinedTx>,
    /// Transactions the block had no gas left for, in their order: for the next block.
    pub deferred: Vec<Recovered<TxEnvelope>>,
    /// Transactions the EVM refused (a nonce or balance that changed since
    /// they were admitted), with its reason.
    pub dropped: Vec<(B256, String)>,
    /// What the block changed.
    changes: Cache,
}

/// Runs what fits of `txs` in the block after `parent`, stamped `timestamp`.
pub fn execute(
    history: &History,
    parent: &MinedBlock,
    txs: Vec<Recovered<TxEnvelope>>,
    chain_id: u64,
    timestamp: u64,
) -> Executed {
    let header = Header {
        parent_hash: parent.hash,
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: parent.header.beneficiary,
        number: parent.header.number + 1,
        gas_limit: parent.header.gas_limit,
        timestamp,
        base_fee_per_gas: parent.header.next_block_base_fee(BaseFeeParams::ethereum()),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        blob_gas_used: Some(0),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(B256::ZERO),
        ..Header::default()
    };

    // Take transactions while their gas limits fit the block's.
    let mut budget = header.gas_limit;
    let mut deferred = Vec::new();
    let mut offered = Vec::new();
    for tx in txs {
        if deferred.is_empty() && tx.gas_limit() <= budget {
            budget -= tx.gas_limit();
            offered.push(tx);
        } else {
            deferred.push(tx);
        }
    }

    let mut included = Vec::new();
    let mut dropped = Vec::new();
    let mut state = CacheDB::new(history.at(parent.header.number));
    let mut cumulative_gas_used = 0;
    evm::execute_block(
        &mut state,
        &header,
        chain_id,
        offered,
        evm::tx_env,
        |tx, result| match result {
            Ok(result) => {
                cumulative_gas_used += result.tx_gas_used();
                let logs = result.logs().to_vec();
                let outcome = Outcome {
                    success: result.is_success(),
                    gas_used: result.tx_gas_used(),
                    cumulative_gas_used,
                    logs_bloom: logs_bloom(&logs),
                    logs,
                    contract_address: tx.is_create().then(|| tx.signer().create(tx.nonce())),
                };
                included.push(MinedTx { tx, outcome });
            }
            Err(err) => dropped.push((*tx.tx_hash(), err.to_string())),
        },
    );
    Executed {
        header,
        included,
        deferred,
        dropped,
        changes: state.cache,
    }
}

/// Records `executed`'s changes in `history` and completes its header.
pub fn seal(history: &mut History, executed: Executed) -> MinedBlock {
    let Executed {
        mut header,
        included,
        changes,
        ..
    } = executed;
    history.commit(header.number, &changes);
    let envelopes: Vec<TxEnvelope> = included
        .iter()
        .map(|mined| mined.tx.inner().clone())
        .collect();
    let receipts: Vec<ReceiptEnvelope> = included.iter().map(receipt_envelope).collect();
    header.gas_used = included
        .last()
        .map_or(0, |mined| mined.outcome.cumulative_gas_used);
    header.transactions_root = calculate_transaction_root(&envelopes);
    header.receipts_root = calculate_receipt_root(&receipts);
    header.logs_bloom = included
        .iter()
        .fold(Bloom::ZERO, |bloom, mined| bloom | mined.outcome.logs_bloom);
    header.state_root = history.state_root();
    finish(history, header, envelopes, included)
}

/// Block 0 of `history` (its genesis state), with base fee `base_fee`.
pub fn genesis(history: &mut History, gas_limit: u64, base_fee: u64, timestamp: u64) -> MinedBlock {
    let header = Header {
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        state_root: history.state_root(),
        transactions_root: EMPTY_ROOT_HASH,
        receipts_root: EMPTY_ROOT_HASH,
        gas_limit,
        timestamp,
        base_fee_per_gas: Some(base_fee),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        blob_gas_used: Some(0),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(B256::ZERO),
        ..Header::default()
    };
    finish(history, header, Vec::new(), Vec::new())
}

/// The block of a complete header: hashed, sized, its hash recorded for `BLOCKHASH`.
fn finish(
    history: &mut History,
    header: Header,
    envelopes: Vec<TxEnvelope>,
    transactions: Vec<MinedTx>,
) -> MinedBlock {
    let hash = header.hash_slow();
    history.push_block_hash(header.number, hash);
    let body = BlockBody {
        transactions: envelopes,
        ommers: Vec::new(),
        withdrawals: Some(Withdrawals::default()),
    };
    let block = alloy_consensus::Block { header, body };
    let size = block.length() as u64;
    MinedBlock {
        header: block.header,
        hash,
        size,
        transactions,
        header_json: Default::default(),
    }
}

fn receipt_envelope(mined: &MinedTx) -> ReceiptEnvelope {
    let receipt = Receipt {
        status: Eip658Value::Eip658(mined.outcome.success),
        cumulative_gas_used: mined.outcome.cumulative_gas_used,
        logs: mined.outcome.logs.clone(),
    };
    let with_bloom = ReceiptWithBloom {
        receipt,
        logs_bloom: mined.outcome.logs_bloom,
    };
    ReceiptEnvelope::from_typed(mined.tx.tx_type(), with_bloom)
}
