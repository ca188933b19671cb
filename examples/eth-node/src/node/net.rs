//! `net_` and `web3_`: the chain id as a decimal string, the client's name, keccak.

use alloy_primitives::{B256, Bytes, U64, keccak256};
use typed_rpc::RpcResult;

use super::Node;
use crate::api::{NetApi, Web3Api};

impl NetApi for Node {
    async fn version(&self) -> RpcResult<String> {
        Ok(self.read().chain_id().to_string())
    }

    async fn listening(&self) -> RpcResult<bool> {
        Ok(true)
    }

    async fn peer_count(&self) -> RpcResult<U64> {
        Ok(U64::ZERO)
    }
}

impl Web3Api for Node {
    async fn client_version(&self) -> RpcResult<String> {
        Ok(concat!("typed-rpc-eth-node/v", env!("CARGO_PKG_VERSION")).to_owned())
    }

    async fn sha3(&self, data: Bytes) -> RpcResult<B256> {
        Ok(keccak256(&data))
    }
}
