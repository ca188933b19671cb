//! The node: the chain behind a lock, the development keys, new blocks
//! broadcast to subscribers, and the router that serves the API traits.

mod eth;
mod fees;
mod net;
mod send;
mod simulate;
mod subscribe;

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::broadcast;
use typed_rpc::{BuildError, ErrorObject, Router, RpcResult};

use crate::accounts::DevAccount;
use crate::api::{EthApi, NetApi, Web3Api};
use crate::chain::{Chain, Genesis, MinedBlock, StateAt, Submitted};
use crate::error::not_found;
use crate::types::BlockId;

/// How many new blocks a subscriber may fall behind before it misses the oldest.
const HEADS_BACKLOG: usize = 1024;

/// How the node runs.
#[derive(Clone, Debug)]
pub struct NodeConfig {
    pub genesis: Genesis,
    /// The development accounts (their keys sign `eth_sendTransaction`).
    pub accounts: Vec<DevAccount>,
    /// A block every interval; `None` mines a block per transaction.
    pub block_time: Option<Duration>,
}

/// A development chain serving the `eth_`, `net_` and `web3_` APIs; cheap to clone.
#[derive(Clone)]
pub struct Node {
    inner: Arc<Inner>,
}

struct Inner {
    chain: RwLock<Chain>,
    accounts: Vec<DevAccount>,
    automine: bool,
    heads: broadcast::Sender<Arc<MinedBlock>>,
}

impl Node {
    /// A chain at its genesis block.
    pub fn new(config: NodeConfig) -> Self {
        let (heads, _) = broadcast::channel(HEADS_BACKLOG);
        let inner = Inner {
            chain: RwLock::new(Chain::new(&config.genesis)),
            accounts: config.accounts,
            automine: config.block_time.is_none(),
            heads,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// A router answering every method of the three API traits.
    pub fn router(&self) -> Result<Router, BuildError> {
        Router::builder()
            .service(EthApi::into_service(self.clone()))
            .service(NetApi::into_service(self.clone()))
            .service(Web3Api::into_service(self.clone()))
            .build()
    }

    /// Mines the waiting transactions (or none) into a block now, and tells subscribers.
    pub fn mine(&self) -> Arc<MinedBlock> {
        let mut chain = self.write();
        let block = chain.mine_pool(now());
        // Sent under the lock, so subscribers see blocks in order.
        let _ = self.inner.heads.send(Arc::clone(&block));
        block
    }

    /// Mines a block every `interval` until the returned task is aborted.
    pub fn spawn_miner(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let node = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                node.mine();
            }
        })
    }

    /// The development accounts.
    pub fn accounts(&self) -> &[DevAccount] {
        &self.inner.accounts
    }

    fn read(&self) -> RwLockReadGuard<'_, Chain> {
        // A panic never leaves the chain half changed (blocks are built
        // aside and appended whole), so a poisoned lock is still sound.
        self.inner
            .chain
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Chain> {
        self.inner
            .chain
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Reads the state as of the block `id` names (the head when absent).
    fn with_state<T>(
        &self,
        id: Option<BlockId>,
        read: impl FnOnce(StateAt<'_>) -> T,
    ) -> RpcResult<T> {
        let chain = self.read();
        let block = resolve(&chain, id)?;
        Ok(read(chain.state_at(block)))
    }

    /// Runs `work` off the runtime's threads (the EVM is CPU work) on the
    /// state and header of the block `id` names, and the chain id. The chain
    /// is read-locked meanwhile: a block waits for the runs before it.
    async fn with_block_state<T: Send + 'static>(
        &self,
        id: Option<BlockId>,
        work: impl FnOnce(StateAt<'_>, &alloy_consensus::Header, u64) -> RpcResult<T> + Send + 'static,
    ) -> RpcResult<T> {
        let node = self.clone();
        let run = move || {
            let chain = node.read();
            let block = resolve(&chain, id)?;
            work(chain.state_at(block), &block.header, chain.chain_id())
        };
        // A panic in the EVM is -32603, as a handler's would be.
        tokio::task::spawn_blocking(run)
            .await
            .map_err(|_| ErrorObject::internal_error())?
    }

    /// Admits a signed transaction, mining it at once unless blocks come on an interval.
    fn submit(
        &self,
        tx: alloy_consensus::transaction::Recovered<alloy_consensus::TxEnvelope>,
    ) -> Result<alloy_primitives::B256, ErrorObject> {
        let hash = *tx.tx_hash();
        let mut chain = self.write();
        if let Submitted::Mined(block) = chain.submit(tx, self.inner.automine, now())? {
            let _ = self.inner.heads.send(block);
        }
        Ok(hash)
    }
}

/// The block `id` names (the head when absent), or `-32001` `header not found`.
fn resolve(chain: &Chain, id: Option<BlockId>) -> RpcResult<&Arc<MinedBlock>> {
    let block = match id.unwrap_or_default() {
        BlockId::Number(tag) => chain.by_tag(tag),
        BlockId::Hash(hash) => chain.by_hash(&hash.block_hash),
    };
    block.ok_or_else(|| not_found("header not found"))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

impl NodeConfig {
    /// The defaults of `eth-node` and anvil: ten accounts of the
    /// development mnemonic with 10 000 ether each, a 30 M gas limit, a
    /// 1 gwei first base fee, and a block per transaction.
    pub fn dev(chain_id: u64) -> Result<Self, String> {
        let accounts = crate::accounts::derive(crate::accounts::DEV_MNEMONIC, 10)?;
        let genesis = Genesis {
            chain_id,
            accounts: accounts.iter().map(|account| account.address).collect(),
            balance: crate::units::ether(10_000),
            gas_limit: 30_000_000,
            base_fee: 1_000_000_000,
            timestamp: now(),
        };
        Ok(Self {
            genesis,
            accounts,
            block_time: None,
        })
    }
}
