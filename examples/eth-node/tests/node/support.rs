//! What the tests share: a node, clients, signed transactions, the Counter contract.

use std::sync::OnceLock;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, Signature, TxKind, U256, keccak256};
use typed_rpc::client::InProcess;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc_eth_node::accounts::DevAccount;
use typed_rpc_eth_node::api::EthApiClient;
use typed_rpc_eth_node::{Node, NodeConfig};

pub const CHAIN_ID: u64 = 31337;
/// 1 gwei.
pub const GWEI: u128 = 1_000_000_000;

/// A fresh development chain, a block per transaction.
pub fn node() -> Node {
    Node::new(NodeConfig::dev(CHAIN_ID).unwrap())
}

/// The typed client, in process.
pub fn eth(node: &Node) -> EthApiClient<InProcess> {
    EthApiClient::new(InProcess::new(node.router().unwrap()))
}

/// `node` served over HTTP and WebSocket on a free port.
pub async fn serve(node: &Node) -> (ServerHandle, String) {
    let handle = Server::new(node.router().unwrap())
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let address = handle.local_addr().unwrap();
    (handle, address.to_string())
}

/// Development account `index`.
pub fn account(node: &Node, index: usize) -> DevAccount {
    node.accounts()[index].clone()
}

/// An EIP-1559 transaction's fields that the tests vary.
pub struct Tx {
    pub nonce: u64,
    pub to: TxKind,
    pub value: U256,
    pub input: Bytes,
    pub gas_limit: u64,
    pub chain_id: u64,
}

impl Tx {
    /// A transfer of `value` wei to `to`.
    pub fn transfer(nonce: u64, to: Address, value: u64) -> Self {
        Self {
            nonce,
            to: TxKind::Call(to),
            value: U256::from(value),
            input: Bytes::new(),
            gas_limit: 21_000,
            chain_id: CHAIN_ID,
        }
    }

    /// A call of `to` with `input`.
    pub fn call(nonce: u64, to: Address, input: Vec<u8>) -> Self {
        Self {
            input: input.into(),
            to: TxKind::Call(to),
            gas_limit: 200_000,
            ..Self::transfer(nonce, to, 0)
        }
    }

    /// EIP-1559, tip 1 gwei, up to 100 gwei, signed by `from`.
    pub fn eip1559(self, from: &DevAccount) -> Bytes {
        let tx = TxEip1559 {
            chain_id: self.chain_id,
            nonce: self.nonce,
            gas_limit: self.gas_limit,
            max_fee_per_gas: 100 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to: self.to,
            value: self.value,
            access_list: Default::default(),
            input: self.input,
        };
        encode(sign(tx, from))
    }

    /// Legacy with EIP-155's chain id, at 10 gwei, signed by `from`.
    pub fn legacy(self, from: &DevAccount) -> Bytes {
        let tx = TxLegacy {
            chain_id: Some(self.chain_id),
            nonce: self.nonce,
            gas_price: 10 * GWEI,
            gas_limit: self.gas_limit,
            to: self.to,
            value: self.value,
            input: self.input,
        };
        encode(sign(tx, from))
    }
}

fn sign<T: SignableTransaction<Signature>>(tx: T, from: &DevAccount) -> alloy_consensus::Signed<T>
where
    TxEnvelope: From<alloy_consensus::Signed<T>>,
{
    let (signature, recovery) = from
        .key
        .sign_prehash_recoverable(tx.signature_hash().as_slice())
        .unwrap();
    tx.into_signed(Signature::from((signature, recovery)))
}

fn encode<T>(signed: alloy_consensus::Signed<T>) -> Bytes
where
    TxEnvelope: From<alloy_consensus::Signed<T>>,
{
    TxEnvelope::from(signed).encoded_2718().into()
}

/// The Counter contract of `tests/fixtures`: its creation code.
pub fn counter_bytecode() -> Vec<u8> {
    static CODE: OnceLock<Vec<u8>> = OnceLock::new();
    CODE.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/Counter.json");
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        alloy_primitives::hex::decode(fixture["bytecode"].as_str().unwrap()).unwrap()
    })
    .clone()
}

/// Counter's creation code with its constructor argument `start`.
pub fn counter_deployment(start: u64) -> Vec<u8> {
    let mut code = counter_bytecode();
    code.extend_from_slice(&word(start));
    code
}

/// The 4-byte selector of a function signature such as `add(uint256)`.
pub fn selector(signature: &str) -> Vec<u8> {
    keccak256(signature.as_bytes())[..4].to_vec()
}

/// The calldata of `signature` with uint256 arguments.
pub fn calldata(signature: &str, args: &[u64]) -> Vec<u8> {
    let mut data = selector(signature);
    for arg in args {
        data.extend_from_slice(&word(*arg));
    }
    data
}

/// A uint256 ABI word.
pub fn word(value: u64) -> [u8; 32] {
    U256::from(value).to_be_bytes()
}

/// The topic of `Incremented(address,uint256)`.
pub fn incremented_topic() -> B256 {
    keccak256("Incremented(address,uint256)")
}

/// Deploys Counter(start) from account 0 (whose nonce must be `nonce`) and answers its address.
pub async fn deploy_counter(
    eth: &EthApiClient<InProcess>,
    node: &Node,
    nonce: u64,
    start: u64,
) -> Address {
    let deployer = account(node, 0);
    let tx = Tx {
        to: TxKind::Create,
        input: counter_deployment(start).into(),
        gas_limit: 1_000_000,
        ..Tx::transfer(nonce, Address::ZERO, 0)
    };
    let hash = eth
        .send_raw_transaction(tx.eip1559(&deployer))
        .await
        .unwrap();
    let receipt = eth
        .get_transaction_receipt(hash)
        .await
        .unwrap()
        .expect("mined at once");
    assert_eq!(receipt.status, 1, "deployment succeeded");
    receipt
        .contract_address
        .expect("a creation has a contract address")
}
