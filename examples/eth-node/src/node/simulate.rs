//! `eth_call` and `eth_estimateGas`: runs of the EVM on a block's state that keep nothing.

use alloy_primitives::Bytes;
use revm::context::TxEnv;
use revm::context::result::{EVMError, ExecutionResult, HaltReason, InvalidTransaction};
use typed_rpc::{ErrorObject, RpcResult};

use super::Node;
use alloy_consensus::Header;

use crate::chain::StateAt;
use crate::chain::evm::{self, RunResult};
use crate::error::{invalid_input, reverted};
use crate::types::{BlockId, CallRequest};

/// Estimates stop once the bounds are within this many thousandths of each other (geth: 1.5 %).
const ESTIMATE_PRECISION_PER_MILLE: u64 = 15;

impl Node {
    pub(super) async fn run_call(
        &self,
        request: CallRequest,
        block: Option<BlockId>,
    ) -> RpcResult<Bytes> {
        self.with_block_state(block, move |state, header, chain_id| {
            let tx = evm::call_env(&request, header.gas_limit, chain_id).map_err(invalid_input)?;
            match evm::simulate(state, header, chain_id, tx).map_err(rejected_call)? {
                ExecutionResult::Success { output, .. } => Ok(output.into_data()),
                ExecutionResult::Revert { output, .. } => Err(reverted(&output)),
                ExecutionResult::Halt { reason, .. } => Err(halted(&reason)),
            }
        })
        .await
    }

    pub(super) async fn run_estimate(
        &self,
        request: CallRequest,
        block: Option<BlockId>,
    ) -> RpcResult<u64> {
        self.with_block_state(block, move |state, header, chain_id| {
            let tx = evm::call_env(&request, header.gas_limit, chain_id).map_err(invalid_input)?;
            estimate(state, header, chain_id, tx)
        })
        .await
    }
}

/// The least gas limit with which `tx` succeeds, to within the precision:
/// a run at the cap, one at the gas it used (which is enough unless refunds
/// or the 63/64 rule say otherwise), then a binary search between.
fn estimate(state: StateAt<'_>, header: &Header, chain_id: u64, tx: TxEnv) -> RpcResult<u64> {
    let cap = tx.gas_limit;
    let run = |gas_limit: u64| -> RunResult {
        let tx = TxEnv {
            gas_limit,
            ..tx.clone()
        };
        evm::simulate(state, header, chain_id, tx)
    };
    let used = match run(cap).map_err(rejected_call)? {
        ExecutionResult::Success { gas, .. } => gas.tx_gas_used(),
        ExecutionResult::Revert { output, .. } => return Err(reverted(&output)),
        ExecutionResult::Halt {
            reason: HaltReason::OutOfGas(_),
            ..
        } => {
            return Err(invalid_input(format!(
                "gas required exceeds allowance ({cap})"
            )));
        }
        ExecutionResult::Halt { reason, .. } => return Err(halted(&reason)),
    };
    let succeeds = |gas_limit: u64| matches!(run(gas_limit), Ok(result) if result.is_success());
    if succeeds(used) {
        return Ok(used);
    }
    let (mut failing, mut enough) = (used, cap);
    while enough - failing > 1 && (enough - failing) * 1000 > enough * ESTIMATE_PRECISION_PER_MILLE
    {
        let middle = failing + (enough - failing) / 2;
        if succeeds(middle) {
            enough = middle;
        } else {
            failing = middle;
        }
    }
    Ok(enough)
}

/// A transaction the EVM would not run at all: a fee below the base fee, a
/// value over the balance, too little gas for the intrinsic cost.
fn rejected_call(err: EVMError<std::convert::Infallible, InvalidTransaction>) -> ErrorObject {
    invalid_input(err.to_string())
}

/// An exceptional halt: out of gas, an invalid opcode, a stack overflow.
fn halted(reason: &HaltReason) -> ErrorObject {
    invalid_input(format!("execution halted: {reason:?}"))
}
