//! Admission of a raw transaction: decoded, its sender recovered, and checked
//! against the chain before it may be mined, each refusal in geth's words.

use alloy_consensus::transaction::{Recovered, SignerRecoverable};
use alloy_consensus::{Transaction, TxEnvelope};
use alloy_eips::eip2718::Decodable2718;
use alloy_primitives::U256;
use revm::DatabaseRef;
use typed_rpc::ErrorObject;

use super::history::StateAt;
use crate::error::{invalid_input, rejected};

/// The signed transaction in `raw` (EIP-2718: legacy RLP or a typed envelope), with its sender.
pub fn decode(raw: &[u8]) -> Result<Recovered<TxEnvelope>, ErrorObject> {
    let mut bytes = raw;
    let envelope = TxEnvelope::decode_2718(&mut bytes)
        .map_err(|err| invalid_input(format!("failed to decode signed transaction: {err}")))?;
    if !bytes.is_empty() {
        return Err(invalid_input(
            "failed to decode signed transaction: trailing bytes",
        ));
    }
    if envelope.is_eip4844() || envelope.is_eip7702() {
        return Err(rejected("transaction type not supported"));
    }
    let sender = envelope.recover_signer().map_err(|_| {
        invalid_input("invalid sender: the signature does not recover to an address")
    })?;
    Ok(Recovered::new_unchecked(envelope, sender))
}

/// What the chain expects of the next transaction of a sender.
pub struct Expect<'a> {
    pub chain_id: u64,
    /// The sender's next nonce, counting its transactions waiting to be mined.
    pub nonce: u64,
    pub base_fee: u64,
    pub block_gas_limit: u64,
    pub state: StateAt<'a>,
}

/// Refuses what the EVM would refuse, with the messages clients match on.
pub fn check(tx: &Recovered<TxEnvelope>, expect: &Expect<'_>) -> Result<(), ErrorObject> {
    if let Some(chain_id) = tx.chain_id()
        && chain_id != expect.chain_id
    {
        return Err(rejected(format!(
            "invalid chain id for signer: have {chain_id}, want {}",
            expect.chain_id
        )));
    }
    let sender = tx.signer();
    if tx.nonce() < expect.nonce {
        return Err(rejected(format!(
            "nonce too low: address {sender}, tx: {} state: {}",
            tx.nonce(),
            expect.nonce
        )));
    }
    if tx.nonce() > expect.nonce {
        return Err(rejected(format!(
            "nonce too high: address {sender}, tx: {} state: {} (this node does not queue future nonces)",
            tx.nonce(),
            expect.nonce
        )));
    }
    if tx.gas_limit() > expect.block_gas_limit {
        return Err(rejected("exceeds block gas limit"));
    }
    if tx.max_fee_per_gas() < u128::from(expect.base_fee) {
        return Err(rejected(format!(
            "max fee per gas less than block base fee: address {sender}, maxFeePerGas: {}, baseFee: {}",
            tx.max_fee_per_gas(),
            expect.base_fee
        )));
    }
    if let Some(priority) = tx.max_priority_fee_per_gas()
        && priority > tx.max_fee_per_gas()
    {
        return Err(rejected(
            "max priority fee per gas higher than max fee per gas",
        ));
    }
    let balance = expect
        .state
        .basic_ref(sender)
        .ok()
        .flatten()
        .map_or(U256::ZERO, |info| info.balance);
    let cost = U256::from(tx.gas_limit())
        .saturating_mul(U256::from(tx.max_fee_per_gas()))
        .saturating_add(tx.value());
    if balance < cost {
        return Err(rejected(format!(
            "insufficient funds for gas * price + value: address {sender} have {balance} want {cost}"
        )));
    }
    Ok(())
}
