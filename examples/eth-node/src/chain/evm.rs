//! revm glue: the EVM's environments from our headers and transactions, and its runs.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::{Header, Transaction, TxEnvelope};
use alloy_eips::Typed2718;
use alloy_primitives::{TxKind, U256};
use revm::context::result::{EVMError, ExecutionResult, InvalidTransaction};
use revm::context::{BlockEnv, CfgEnv, TxEnv};
use revm::context_interface::block::BlobExcessGasAndPrice;
use revm::database::CacheDB;
use revm::primitives::hardfork::SpecId;
use revm::{Context, ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext};

use super::history::StateAt;
use crate::types::CallRequest;

/// The state of a block with the changes of the transactions run on it so far.
pub type Overlay<'a> = CacheDB<StateAt<'a>>;

/// What a run of the EVM gives: an outcome, or a transaction it would not run.
pub type RunResult =
    Result<ExecutionResult, EVMError<std::convert::Infallible, InvalidTransaction>>;

/// The hard fork the chain runs: Cancun (`PUSH0`, `MCOPY`, transient storage),
/// what current compilers target by default.
pub const SPEC: SpecId = SpecId::CANCUN;

/// The configuration of a chain with this id.
pub fn cfg(chain_id: u64) -> CfgEnv {
    let mut cfg = CfgEnv::new_with_spec(SPEC);
    cfg.chain_id = chain_id;
    cfg
}

/// The block environment of `header`.
pub fn block_env(header: &Header) -> BlockEnv {
    BlockEnv {
        number: U256::from(header.number),
        beneficiary: header.beneficiary,
        timestamp: U256::from(header.timestamp),
        gas_limit: header.gas_limit,
        basefee: header.base_fee_per_gas.unwrap_or_default(),
        difficulty: header.difficulty,
        prevrandao: Some(header.mix_hash),
        blob_excess_gas_and_price: Some(BlobExcessGasAndPrice::new_with_spec(0, SPEC)),
        ..BlockEnv::default()
    }
}

/// The EVM's view of a signed transaction.
pub fn tx_env(tx: &Recovered<TxEnvelope>) -> TxEnv {
    TxEnv {
        tx_type: tx.ty(),
        caller: tx.signer(),
        gas_limit: tx.gas_limit(),
        gas_price: tx.max_fee_per_gas(),
        kind: tx.kind(),
        value: tx.value(),
        data: tx.input().clone(),
        nonce: tx.nonce(),
        chain_id: tx.chain_id(),
        access_list: tx.access_list().cloned().unwrap_or_default(),
        gas_priority_fee: tx.max_priority_fee_per_gas(),
        ..TxEnv::default()
    }
}

/// The EVM's view of an `eth_call`: what is left out is the sender zero,
/// the block's gas limit, no fee and no value.
pub fn call_env(
    request: &CallRequest,
    gas_limit: u64,
    chain_id: u64,
) -> Result<TxEnv, &'static str> {
    let fee_market =
        request.max_fee_per_gas.is_some() || request.max_priority_fee_per_gas.is_some();
    let tx_type = if fee_market {
        2
    } else if request.access_list.is_some() {
        1
    } else {
        0
    };
    Ok(TxEnv {
        tx_type,
        caller: request.from.unwrap_or_default(),
        gas_limit: request.gas.unwrap_or(gas_limit),
        gas_price: request.gas_price.or(request.max_fee_per_gas).unwrap_or(0),
        kind: request.to.map_or(TxKind::Create, TxKind::Call),
        value: request.value.unwrap_or_default(),
        data: request.calldata()?,
        nonce: request.nonce.unwrap_or(0),
        chain_id: Some(chain_id),
        access_list: request.access_list.clone().unwrap_or_default(),
        gas_priority_fee: fee_market.then(|| request.max_priority_fee_per_gas.unwrap_or(0)),
        ..TxEnv::default()
    })
}

/// Runs `tx` on `state` as of `header` and keeps nothing: `eth_call` and
/// `eth_estimateGas`. Nonces are not checked, and without a fee the base fee is not either.
pub fn simulate(state: StateAt<'_>, header: &Header, chain_id: u64, tx: TxEnv) -> RunResult {
    let mut cfg = cfg(chain_id);
    cfg.disable_nonce_check = true;
    cfg.disable_eip3607 = true;
    cfg.disable_base_fee = tx.gas_price == 0;
    let mut evm = Context::mainnet()
        .with_db(CacheDB::new(state))
        .with_cfg(cfg)
        .with_block(block_env(header))
        .build_mainnet();
    evm.transact(tx).map(|outcome| outcome.result)
}

/// Runs signed transactions in order on `state` in the block of `header`,
/// committing each one's changes to it; the callback sees each outcome.
pub fn execute_block<T>(
    state: &mut Overlay<'_>,
    header: &Header,
    chain_id: u64,
    txs: impl IntoIterator<Item = T>,
    env: impl Fn(&T) -> TxEnv,
    mut outcome: impl FnMut(T, RunResult),
) {
    let mut evm = Context::mainnet()
        .with_db(state)
        .with_cfg(cfg(chain_id))
        .with_block(block_env(header))
        .build_mainnet();
    for tx in txs {
        let result = evm.transact_commit(env(&tx));
        outcome(tx, result);
    }
}
