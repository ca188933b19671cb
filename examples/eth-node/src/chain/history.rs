//! The state through time: each account's and storage slot's values from
//! the block that set them, so the state at any block is read without a
//! copy of it, and a block costs memory for what it changed only.

use std::collections::HashMap;
use std::convert::Infallible;

use alloy_consensus::TrieAccount;
use alloy_consensus::proofs::{state_root_unhashed, storage_root_unhashed};
use alloy_primitives::{Address, B256, U256, keccak256};
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::database::{AccountState, Cache};
use revm::state::AccountInfo;

/// Values by block: each entry holds from its block on, the newest last.
type Timeline<T> = Vec<(u64, T)>;

/// The newest value of `timeline` set at or before `block`.
fn as_of<T>(timeline: &Timeline<T>, block: u64) -> Option<&T> {
    let after = timeline.partition_point(|(from, _)| *from <= block);
    after.checked_sub(1).map(|index| &timeline[index].1)
}

/// Sets `value` from `block` on, unless it is already the newest value.
fn set<T: PartialEq>(timeline: &mut Timeline<T>, block: u64, value: T) {
    match timeline.last_mut() {
        Some((_, newest)) if *newest == value => {}
        Some((from, newest)) if *from == block => *newest = value,
        _ => timeline.push((block, value)),
    }
}

/// Every account, slot, contract and block hash the chain has had.
#[derive(Default)]
pub struct History {
    /// `None` from a block on which the account did not exist.
    accounts: HashMap<Address, Timeline<Option<AccountInfo>>>,
    storage: HashMap<Address, HashMap<U256, Timeline<U256>>>,
    /// Code by hash: immutable, kept once.
    contracts: HashMap<B256, Bytecode>,
    /// By block number.
    block_hashes: Vec<B256>,
}

impl History {
    /// A state of `accounts` at block 0.
    pub fn genesis(accounts: impl IntoIterator<Item = (Address, AccountInfo)>) -> Self {
        let mut history = Self::default();
        for (address, info) in accounts {
            history.accounts.insert(address, vec![(0, Some(info))]);
        }
        history
    }

    /// The state as of the end of block `block`, for reads and for the EVM.
    pub fn at(&self, block: u64) -> StateAt<'_> {
        StateAt {
            history: self,
            block,
        }
    }

    /// Records what block `block` changed: the accounts and slots a run of
    /// the EVM left in `changes` (the cache of a `CacheDB` over [`Self::at`]
    /// the block before), and the code it created.
    pub fn commit(&mut self, block: u64, changes: &Cache) {
        for (hash, code) in &changes.contracts {
            self.contracts.entry(*hash).or_insert_with(|| code.clone());
        }
        for (address, account) in &changes.accounts {
            let cleared = match account.account_state {
                AccountState::None => continue, // only read
                AccountState::NotExisting | AccountState::StorageCleared => true,
                AccountState::Touched => false,
            };
            let info = (account.account_state != AccountState::NotExisting).then(|| AccountInfo {
                code: None, // by hash, in `contracts`
                ..account.info.clone()
            });
            set(self.accounts.entry(*address).or_default(), block, info);
            let slots = self.storage.entry(*address).or_default();
            if cleared {
                for timeline in slots.values_mut() {
                    set(timeline, block, U256::ZERO);
                }
            }
            for (slot, value) in &account.storage {
                set(slots.entry(*slot).or_default(), block, *value);
            }
        }
    }

    /// Records the hash of block `number`, the next one.
    pub fn push_block_hash(&mut self, number: u64, hash: B256) {
        debug_assert_eq!(self.block_hashes.len() as u64, number);
        self.block_hashes.push(hash);
    }

    /// The Merkle-Patricia root of the newest state, as Ethereum defines it
    /// (empty accounts left out, as EIP-161 removes them).
    pub fn state_root(&self) -> B256 {
        let accounts =
            self.accounts.iter().filter_map(|(address, timeline)| {
                let info = timeline.last()?.1.as_ref()?;
                if info.is_empty() {
                    return None;
                }
                let storage = self.storage.get(address).into_iter().flatten().filter_map(
                    |(slot, timeline)| {
                        let value = timeline.last()?.1;
                        (!value.is_zero()).then(|| (B256::from(*slot), value))
                    },
                );
                let account = TrieAccount {
                    nonce: info.nonce,
                    balance: info.balance,
                    storage_root: storage_root_unhashed(storage),
                    code_hash: info.code_hash,
                    ..TrieAccount::default()
                };
                Some((*address, account))
            });
        state_root_unhashed(accounts)
    }
}

/// The state at the end of one block: what the EVM and the reads see.
#[derive(Clone, Copy)]
pub struct StateAt<'a> {
    history: &'a History,
    block: u64,
}

impl DatabaseRef for StateAt<'_> {
    type Error = Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        let info = self
            .history
            .accounts
            .get(&address)
            .and_then(|timeline| as_of(timeline, self.block));
        Ok(info.cloned().flatten())
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Infallible> {
        Ok(self
            .history
            .contracts
            .get(&code_hash)
            .cloned()
            .unwrap_or_default())
    }

    fn storage_ref(&self, address: Address, slot: U256) -> Result<U256, Infallible> {
        let value = self
            .history
            .storage
            .get(&address)
            .and_then(|slots| as_of(slots.get(&slot)?, self.block));
        Ok(value.copied().unwrap_or_default())
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Infallible> {
        // The EVM asks only for the 256 blocks before the one it runs.
        let hash = usize::try_from(number)
            .ok()
            .and_then(|number| self.history.block_hashes.get(number));
        Ok(hash
            .copied()
            .unwrap_or_else(|| keccak256(number.to_be_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_answers_as_of_any_block() {
        let mut timeline = Timeline::new();
        set(&mut timeline, 0, 'a');
        set(&mut timeline, 3, 'b');
        set(&mut timeline, 3, 'c'); // a second change in block 3 replaces the first
        set(&mut timeline, 5, 'c'); // no change: nothing recorded
        assert_eq!(timeline, vec![(0, 'a'), (3, 'c')]);
        assert_eq!(
            [0, 2, 3, 9].map(|block| as_of(&timeline, block).copied()),
            [Some('a'), Some('a'), Some('c'), Some('c')]
        );
        assert_eq!(as_of(&Timeline::<char>::new(), 4), None);
    }
}
