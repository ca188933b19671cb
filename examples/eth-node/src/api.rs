//! The node's JSON-RPC API as `#[rpc]` traits: `eth_`, `net_` and `web3_`.
//!
//! Each trait gives the server side (implemented by [`crate::Node`]) and a
//! typed client (`EthApiClient`, `NetApiClient`, `Web3ApiClient`) that sends
//! params by position, as Ethereum nodes require.

use alloy_primitives::{Address, B256, Bytes, U64, U256};
use futures_util::Stream;
use typed_rpc::{RpcResult, rpc};

use crate::types::{
    Block, BlockCount, BlockId, BlockNumberOrTag, CallRequest, FeeHistory, LogFilter, RpcReceipt,
    RpcTransaction, SubscriptionItem, SubscriptionKind,
};

/// The `eth_` methods.
#[rpc(namespace = "eth")]
pub trait EthApi {
    /// The chain id (EIP-155) transactions must be signed for.
    #[method(name = "chainId")]
    async fn chain_id(&self) -> RpcResult<U64>;

    /// The number of the newest block.
    #[method(name = "blockNumber")]
    async fn block_number(&self) -> RpcResult<U64>;

    /// The development accounts this node holds keys for.
    #[method(name = "accounts")]
    async fn accounts(&self) -> RpcResult<Vec<Address>>;

    /// Always `false`: a development chain is never syncing.
    #[method(name = "syncing")]
    async fn syncing(&self) -> RpcResult<bool>;

    /// `address`'s balance in wei at `block` (the head when absent).
    #[method(name = "getBalance")]
    async fn get_balance(&self, address: Address, block: Option<BlockId>) -> RpcResult<U256>;

    /// How many transactions `address` has sent by `block`; with
    /// `pending`, those waiting for the next block too.
    #[method(name = "getTransactionCount")]
    async fn get_transaction_count(
        &self,
        address: Address,
        block: Option<BlockId>,
    ) -> RpcResult<U64>;

    /// The code deployed at `address` (`0x` for none).
    #[method(name = "getCode")]
    async fn get_code(&self, address: Address, block: Option<BlockId>) -> RpcResult<Bytes>;

    /// Storage slot `slot` of `address`, as 32 bytes.
    #[method(name = "getStorageAt")]
    async fn get_storage_at(
        &self,
        address: Address,
        slot: U256,
        block: Option<BlockId>,
    ) -> RpcResult<B256>;

    /// A legacy gas price that gets a transaction into the next block.
    #[method(name = "gasPrice")]
    async fn gas_price(&self) -> RpcResult<U256>;

    /// A priority fee (tip) for EIP-1559 transactions.
    #[method(name = "maxPriorityFeePerGas")]
    async fn max_priority_fee_per_gas(&self) -> RpcResult<U256>;

    /// Base fees and gas use of the `block_count` blocks up to `newest_block`.
    #[method(name = "feeHistory")]
    async fn fee_history(
        &self,
        block_count: BlockCount,
        newest_block: BlockNumberOrTag,
        reward_percentiles: Option<Vec<f64>>,
    ) -> RpcResult<FeeHistory>;

    /// The block `number` names; `null` past the head.
    #[method(name = "getBlockByNumber")]
    async fn get_block_by_number(
        &self,
        number: BlockNumberOrTag,
        full: bool,
    ) -> RpcResult<Option<Block>>;

    /// The block whose hash is `hash`; `null` when unknown.
    #[method(name = "getBlockByHash")]
    async fn get_block_by_hash(&self, hash: B256, full: bool) -> RpcResult<Option<Block>>;

    /// How many transactions block `number` holds; `null` past the head.
    #[method(name = "getBlockTransactionCountByNumber")]
    async fn get_block_transaction_count_by_number(
        &self,
        number: BlockNumberOrTag,
    ) -> RpcResult<Option<U64>>;

    /// Runs `request` on the state at `block` and answers what it returned;
    /// a revert is error `3` with the revert data.
    #[method(name = "call")]
    async fn call(&self, request: CallRequest, block: Option<BlockId>) -> RpcResult<Bytes>;

    /// The least gas with which `request` succeeds, found by running it.
    #[method(name = "estimateGas")]
    async fn estimate_gas(&self, request: CallRequest, block: Option<BlockId>) -> RpcResult<U64>;

    /// Admits a signed transaction (legacy EIP-155, EIP-2930 or EIP-1559) and answers its hash.
    #[method(name = "sendRawTransaction")]
    async fn send_raw_transaction(&self, raw: Bytes) -> RpcResult<B256>;

    /// Signs `request` with the key of its `from`, one of the development
    /// accounts, fills in what it lacks, and admits it.
    #[method(name = "sendTransaction")]
    async fn send_transaction(&self, request: CallRequest) -> RpcResult<B256>;

    /// A mined or waiting transaction; `null` when unknown.
    #[method(name = "getTransactionByHash")]
    async fn get_transaction_by_hash(&self, hash: B256) -> RpcResult<Option<RpcTransaction>>;

    /// A mined transaction's receipt; `null` until it is mined.
    #[method(name = "getTransactionReceipt")]
    async fn get_transaction_receipt(&self, hash: B256) -> RpcResult<Option<RpcReceipt>>;

    /// The logs of a block range (or one block by hash) that match `filter`.
    #[method(name = "getLogs")]
    async fn get_logs(&self, filter: LogFilter) -> RpcResult<Vec<crate::types::RpcLog>>;

    /// `newHeads` (a header per new block) or `logs` (each new log that
    /// matches `filter`), as `eth_subscription` notifications over WebSocket.
    #[method(
        name = "subscribe",
        stream(notification = "eth_subscription", unsubscribe = "eth_unsubscribe")
    )]
    async fn subscribe(
        &self,
        kind: SubscriptionKind,
        filter: Option<LogFilter>,
    ) -> RpcResult<impl Stream<Item = RpcResult<SubscriptionItem>> + Send + 'static>;
}

/// The `net_` methods.
#[rpc(namespace = "net")]
pub trait NetApi {
    /// The chain id as a decimal string.
    #[method(name = "version")]
    async fn version(&self) -> RpcResult<String>;

    /// Always `true`.
    #[method(name = "listening")]
    async fn listening(&self) -> RpcResult<bool>;

    /// Always `0x0`: a development node has no peers.
    #[method(name = "peerCount")]
    async fn peer_count(&self) -> RpcResult<U64>;
}

/// The `web3_` methods.
#[rpc(namespace = "web3")]
pub trait Web3Api {
    /// `typed-rpc-eth-node/VERSION`.
    #[method(name = "clientVersion")]
    async fn client_version(&self) -> RpcResult<String>;

    /// keccak256 of `data`.
    #[method(name = "sha3")]
    async fn sha3(&self, data: Bytes) -> RpcResult<B256>;
}
