//! `eth_sendTransaction`: a transaction from a development account, completed, signed and admitted.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
use alloy_primitives::{B256, Signature, TxKind};
use typed_rpc::RpcResult;

use super::Node;
use super::fees::PRIORITY_FEE;
use crate::error::invalid_input;
use crate::types::{BlockId, BlockNumberOrTag, CallRequest};

impl Node {
    /// Fills in the nonce, gas and fees `request` lacks (a legacy transaction
    /// when it names a `gasPrice`, else EIP-1559), signs it with its sender's
    /// key and admits it.
    pub(super) async fn sign_and_submit(&self, request: CallRequest) -> RpcResult<B256> {
        let from = request
            .from
            .ok_or_else(|| invalid_input("missing \"from\""))?;
        let key = self
            .accounts()
            .iter()
            .find(|account| account.address == from)
            .map(|account| account.key.clone())
            .ok_or_else(|| invalid_input(format!("unknown account {from}")))?;
        let gas_limit = match request.gas {
            Some(gas) => gas,
            None => {
                self.run_estimate(
                    request.clone(),
                    Some(BlockId::Number(BlockNumberOrTag::Pending)),
                )
                .await?
            }
        };
        let (chain_id, nonce) = {
            let chain = self.read();
            (
                chain.chain_id(),
                request.nonce.unwrap_or_else(|| chain.next_nonce(&from)),
            )
        };
        let to = request.to.map_or(TxKind::Create, TxKind::Call);
        let value = request.value.unwrap_or_default();
        let input = request.calldata().map_err(invalid_input)?;
        let signed: TxEnvelope = if let Some(gas_price) = request.gas_price {
            let tx = TxLegacy {
                chain_id: Some(chain_id),
                nonce,
                gas_price,
                gas_limit,
                to,
                value,
                input,
            };
            sign(tx, &key)?.into()
        } else {
            let max_priority_fee_per_gas = request.max_priority_fee_per_gas.unwrap_or(PRIORITY_FEE);
            let max_fee_per_gas = request
                .max_fee_per_gas
                .unwrap_or(u128::from(self.next_base_fee()) * 2 + max_priority_fee_per_gas);
            let tx = TxEip1559 {
                chain_id,
                nonce,
                gas_limit,
                max_fee_per_gas,
                max_priority_fee_per_gas,
                to,
                value,
                access_list: request.access_list.clone().unwrap_or_default(),
                input,
            };
            sign(tx, &key)?.into()
        };
        self.submit(Recovered::new_unchecked(signed, from))
    }
}

fn sign<T: SignableTransaction<Signature>>(
    tx: T,
    key: &coins_bip32::ecdsa::SigningKey,
) -> RpcResult<alloy_consensus::Signed<T>> {
    let hash = tx.signature_hash();
    let (signature, recovery) = key
        .sign_prehash_recoverable(hash.as_slice())
        .map_err(|err| invalid_input(format!("cannot sign: {err}")))?;
    Ok(tx.into_signed(Signature::from((signature, recovery))))
}
