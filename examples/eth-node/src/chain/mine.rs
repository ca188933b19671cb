//! Mining: transactions run on the parent's state into a new block with real roots and hash.

use std::sync::Arc;

use alloy_consensus::proofs::{
    calculate_receipt_root, calculate_transaction_root, state_root_unhashed, storage_root_unhashed,
};
use alloy_consensus::transaction::Recovered;
use alloy_consensus::{
    BlockBody, EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Eip658Value, Header, Receipt,
    ReceiptEnvelope, ReceiptWithBloom, Transaction, TrieAccount, TxEnvelope,
};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip4895::Withdrawals;
use alloy_primitives::{B256, Bloom, logs_bloom};
use alloy_rlp::Encodable;
use revm::database::AccountState;

use super::block::{MinedBlock, MinedTx, Outcome};
use super::evm::{self, State};

/// A new block, and what of the offered transactions did not go in.
pub struct Mined {
    pub block: MinedBlock,
    /// Transactions the block had no gas left for, in their order: for the next block.
    pub deferred: Vec<Recovered<TxEnvelope>>,
    /// Transactions the EVM refused (a nonce or balance that changed since
    /// they were admitted), with its reason.
    pub dropped: Vec<(B256, String)>,
}

/// The block after `parent` holding what fits of `txs`, stamped `timestamp`.
pub fn mine(
    parent: &MinedBlock,
    txs: Vec<Recovered<TxEnvelope>>,
    chain_id: u64,
    timestamp: u64,
) -> Mined {
    let mut header = Header {
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
    let state = if offered.is_empty() {
        Arc::clone(&parent.state)
    } else {
        let mut state = State::clone(&parent.state);
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
        // The EVM's database keeps every log it commits; ours are in the receipts.
        state.cache.logs.clear();
        Arc::new(state)
    };

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
    header.state_root = if Arc::ptr_eq(&state, &parent.state) {
        parent.header.state_root
    } else {
        state_root(&state)
    };
    let hash = header.hash_slow();
    let size = rlp_size(&header, envelopes);
    let block = MinedBlock {
        header,
        hash,
        size: size as u64,
        transactions: included,
        state,
    };
    Mined {
        block,
        deferred,
        dropped,
    }
}

/// Block 0: `state` and nothing else, with base fee `base_fee`.
pub fn genesis(state: State, gas_limit: u64, base_fee: u64, timestamp: u64) -> MinedBlock {
    let header = Header {
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        state_root: state_root(&state),
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
    let hash = header.hash_slow();
    let size = rlp_size(&header, Vec::new());
    MinedBlock {
        header,
        hash,
        size: size as u64,
        transactions: Vec::new(),
        state: Arc::new(state),
    }
}

fn rlp_size(header: &Header, transactions: Vec<TxEnvelope>) -> usize {
    let body = BlockBody {
        transactions,
        ommers: Vec::new(),
        withdrawals: Some(Withdrawals::default()),
    };
    alloy_consensus::Block {
        header: header.clone(),
        body,
    }
    .length()
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

/// The Merkle-Patricia root of every existing account, as Ethereum defines it.
fn state_root(state: &State) -> B256 {
    let accounts = state
        .cache
        .accounts
        .iter()
        .filter(|(_, account)| account.account_state != AccountState::NotExisting)
        .map(|(address, account)| {
            let storage = account
                .storage
                .iter()
                .filter(|(_, value)| !value.is_zero())
                .map(|(slot, value)| (B256::from(*slot), *value));
            let trie_account = TrieAccount {
                nonce: account.info.nonce,
                balance: account.info.balance,
                storage_root: storage_root_unhashed(storage),
                code_hash: account.info.code_hash,
                ..TrieAccount::default()
            };
            (*address, trie_account)
        });
    state_root_unhashed(accounts)
}
