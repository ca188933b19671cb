//! The state through time: each account's and storage slot's values from
//! the block that set them, so the state at any block is read without a
//! copy of it, and a block costs memory for what it changed only.

use std::collections::HashMap;
use std::convert::Infallible;

use alloy_consensus::proofs::{state_root_unhashed, storage_root_unhashed};
use alloy_consensus::{EMPTY_ROOT_HASH, TrieAccount};
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
    /// The storage roots of the newest state, kept until an account's storage changes.
    storage_roots: HashMap<Address, B256>,
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
            if cleared || !account.storage.is_empty() {
                self.storage_roots.remove(address);
            }
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
    /// (empty accounts left out, as EIP-161 removes them). Only the storage
    /// tries that changed since the last root are hashed again.
    pub fn state_root(&mut self) -> B256 {
        for (address, slots) in &self.storage {
            self.storage_roots.entry(*address).or_insert_with(|| {
                storage_root_unhashed(slots.iter().filter_map(|(slot, timeline)| {
                    let value = timeline.last()?.1;
                    (!value.is_zero()).then(|| (B256::from(*slot), value))
                }))
            });
        }
        let accounts = self.accounts.iter().filter_map(|(address, timeline)| {
            let info = timeline.last()?.1.as_ref()?;
            if info.is_empty() {
                return None;
            }
            let account = TrieAccount {
                nonce: info.nonce,
                balance: info.balance,
                storage_root: self
                    .storage_roots
                    .get(address)
                    .copied()
                    .unwrap_or(EMPTY_ROOT_HASH),
                code_hash: info.code_hash,
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

    fn touched(info: &AccountInfo, slots: &[(u64, u64)]) -> Cache {
        let mut account = revm::database::DbAccount {
            info: info.clone(),
            account_state: AccountState::Touched,
            ..Default::default()
        };
        for (slot, value) in slots {
            account
                .storage
                .insert(U256::from(*slot), U256::from(*value));
        }
        let mut changes = Cache::default();
        changes.accounts.insert(Address::repeat_byte(1), account);
        changes
    }

    #[test]
    fn the_state_root_with_kept_storage_roots_is_the_root_of_the_newest_state() {
        let start = AccountInfo {
            balance: U256::from(5),
            ..AccountInfo::default()
        };
        let richer = AccountInfo {
            balance: U256::from(9),
            nonce: 1,
            ..AccountInfo::default()
        };
        let mut history = History::genesis([(Address::repeat_byte(1), start.clone())]);
        let genesis = history.state_root();
        history.commit(1, &touched(&start, &[(7, 1), (8, 2)]));
        let with_slots = history.state_root();
        history.commit(2, &touched(&richer, &[])); // the balance only: the storage root is kept
        history.commit(3, &touched(&richer, &[(7, 0)])); // a slot cleared
        let newest = history.state_root();

        let mut fresh = History::genesis([(Address::repeat_byte(1), start)]);
        fresh.commit(1, &touched(&richer, &[(8, 2)]));
        assert_eq!(newest, fresh.state_root());
        assert!(genesis != with_slots && with_slots != newest);
        assert_eq!(
            history
                .at(1)
                .storage_ref(Address::repeat_byte(1), U256::from(7)),
            Ok(U256::from(1))
        );
        assert_eq!(
            history
                .at(3)
                .storage_ref(Address::repeat_byte(1), U256::from(7)),
            Ok(U256::ZERO)
        );
        assert_eq!(
            history
                .at(2)
                .basic_ref(Address::repeat_byte(1))
                .unwrap()
                .unwrap()
                .balance,
            U256::from(9)
        );
    }
}
