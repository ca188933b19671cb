//! The chain: its blocks, the transactions waiting for the next one, and the state at each block.

mod admit;
mod block;
pub mod evm;
mod history;
mod mine;

use std::collections::HashMap;
use std::sync::Arc;

use alloy_consensus::TxEnvelope;
use alloy_consensus::transaction::Recovered;
use alloy_primitives::{Address, B256, U256};
use revm::DatabaseRef;
use revm::state::AccountInfo;
use typed_rpc::ErrorObject;

pub use admit::decode;
pub use block::{Location, MinedBlock, MinedTx, Outcome, rpc_transaction};
pub use history::StateAt;

use crate::error::rejected;
use crate::types::BlockNumberOrTag;
use history::History;

/// How the chain starts.
#[derive(Clone, Debug)]
pub struct Genesis {
    pub chain_id: u64,
    /// Funded with `balance` each.
    pub accounts: Vec<Address>,
    pub balance: U256,
    pub gas_limit: u64,
    /// The first block's base fee, in wei.
    pub base_fee: u64,
    pub timestamp: u64,
}

/// What a submitted transaction led to.
pub enum Submitted {
    /// Mined at once into this block (a block per transaction).
    Mined(Arc<MinedBlock>),
    /// Waiting for the next interval's block.
    Queued,
}

/// Blocks (the head last), their index by hash and of their transactions,
/// the state through time, and the pool.
pub struct Chain {
    chain_id: u64,
    history: History,
    blocks: Vec<Arc<MinedBlock>>,
    block_numbers: HashMap<B256, u64>,
    /// Where each mined transaction is: block number and index in it.
    tx_locations: HashMap<B256, (u64, usize)>,
    /// Admitted, waiting for the next block (interval mining only).
    pool: Vec<Recovered<TxEnvelope>>,
}

impl Chain {
    /// The chain of one block, `genesis`.
    pub fn new(genesis: &Genesis) -> Self {
        let info = AccountInfo {
            balance: genesis.balance,
            ..AccountInfo::default()
        };
        let accounts = genesis
            .accounts
            .iter()
            .map(|address| (*address, info.clone()));
        let mut history = History::genesis(accounts);
        let block0 = mine::genesis(
            &mut history,
            genesis.gas_limit,
            genesis.base_fee,
            genesis.timestamp,
        );
        let mut chain = Self {
            chain_id: genesis.chain_id,
            history,
            blocks: Vec::new(),
            block_numbers: HashMap::new(),
            tx_locations: HashMap::new(),
            pool: Vec::new(),
        };
        chain.append(block0);
        chain
    }

    /// The chain id transactions must be signed for.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The newest block.
    pub fn head(&self) -> &Arc<MinedBlock> {
        self.blocks.last().expect("a chain has its genesis block")
    }

    /// Block `number`, if mined.
    pub fn by_number(&self, number: u64) -> Option<&Arc<MinedBlock>> {
        self.blocks.get(usize::try_from(number).ok()?)
    }

    /// The block whose hash is `hash`.
    pub fn by_hash(&self, hash: &B256) -> Option<&Arc<MinedBlock>> {
        self.by_number(*self.block_numbers.get(hash)?)
    }

    /// The block a tag names. Every block of a development chain is final
    /// as soon as it is mined, so `safe` and `finalized` are the head, and
    /// `pending` is too (its transactions are in the pool, not in a block).
    pub fn by_tag(&self, tag: BlockNumberOrTag) -> Option<&Arc<MinedBlock>> {
        match tag {
            BlockNumberOrTag::Number(number) => self.by_number(number),
            BlockNumberOrTag::Earliest => self.blocks.first(),
            BlockNumberOrTag::Latest
            | BlockNumberOrTag::Pending
            | BlockNumberOrTag::Safe
            | BlockNumberOrTag::Finalized => Some(self.head()),
        }
    }

    /// The state as of the end of `block`.
    pub fn state_at(&self, block: &MinedBlock) -> StateAt<'_> {
        self.history.at(block.header.number)
    }

    /// The block that mined transaction `hash`, and its index there.
    pub fn transaction(&self, hash: &B256) -> Option<(&Arc<MinedBlock>, usize)> {
        let (number, index) = self.tx_locations.get(hash)?;
        Some((self.by_number(*number)?, *index))
    }

    /// A transaction still waiting in the pool.
    pub fn pooled(&self, hash: &B256) -> Option<&Recovered<TxEnvelope>> {
        self.pool.iter().find(|tx| tx.tx_hash() == hash)
    }

    /// The nonce `address`'s next transaction must carry, its pooled ones counted.
    pub fn next_nonce(&self, address: &Address) -> u64 {
        let mined = account(self.state_at(self.head()), address).map_or(0, |info| info.nonce);
        mined
            + self
                .pool
                .iter()
                .filter(|tx| tx.signer() == *address)
                .count() as u64
    }

    /// Admits a signed transaction: mined at once with `automine`, else pooled.
    pub fn submit(
        &mut self,
        tx: Recovered<TxEnvelope>,
        automine: bool,
        timestamp: u64,
    ) -> Result<Submitted, ErrorObject> {
        if self.tx_locations.contains_key(tx.tx_hash()) || self.pooled(tx.tx_hash()).is_some() {
            return Err(rejected("already known"));
        }
        let head = self.head();
        let expect = admit::Expect {
            chain_id: self.chain_id,
            nonce: self.next_nonce(&tx.signer()),
            base_fee: head
                .header
                .next_block_base_fee(alloy_eips::eip1559::BaseFeeParams::ethereum())
                .unwrap_or_default(),
            block_gas_limit: head.header.gas_limit,
            state: self.state_at(head),
        };
        admit::check(&tx, &expect)?;
        if !automine {
            self.pool.push(tx);
            return Ok(Submitted::Queued);
        }
        let timestamp = self.next_timestamp(timestamp);
        let executed = mine::execute(&self.history, head, vec![tx], self.chain_id, timestamp);
        if let Some((_, reason)) = executed.dropped.first() {
            return Err(rejected(reason.clone()));
        }
        let block = mine::seal(&mut self.history, executed);
        Ok(Submitted::Mined(self.append(block)))
    }

    /// Mines the pool into a new block (an empty one if the pool is).
    pub fn mine_pool(&mut self, timestamp: u64) -> Arc<MinedBlock> {
        let txs = std::mem::take(&mut self.pool);
        let timestamp = self.next_timestamp(timestamp);
        let mut executed = mine::execute(&self.history, self.head(), txs, self.chain_id, timestamp);
        self.pool = std::mem::take(&mut executed.deferred);
        let block = mine::seal(&mut self.history, executed);
        self.append(block)
    }

    /// A timestamp after the head's: `now`, or the head's plus one when
    /// blocks come faster than one a second.
    fn next_timestamp(&self, now: u64) -> u64 {
        now.max(self.head().header.timestamp + 1)
    }

    fn append(&mut self, block: MinedBlock) -> Arc<MinedBlock> {
        let number = block.header.number;
        self.block_numbers.insert(block.hash, number);
        for (index, mined) in block.transactions.iter().enumerate() {
            self.tx_locations
                .insert(*mined.tx.tx_hash(), (number, index));
        }
        let block = Arc::new(block);
        self.blocks.push(Arc::clone(&block));
        block
    }
}

/// An account's balance, nonce and code hash in `state`, if it exists.
pub fn account(state: StateAt<'_>, address: &Address) -> Option<AccountInfo> {
    state.basic_ref(*address).ok().flatten()
}
