//! The eth-node's API measured on two frameworks: typed-rpc (the node's own
//! router) and jsonrpsee 0.26 (the framework reth is built on), both calling
//! the same `Node`, so the chain's work is the same and only the framework
//! differs. jsonrpsee serves the methods the benchmarks call:
//! `eth_getBalance`, `eth_blockNumber`, `eth_chainId` and `eth_subscribe`
//! (`newHeads`), written the way its documentation shows.

pub mod jsonrpsee_api {
    use alloy_primitives::{Address, U64, U256};
    use futures_util::StreamExt;
    use jsonrpsee::core::{RpcResult, SubscriptionResult, async_trait};
    use jsonrpsee::proc_macros::rpc;
    use jsonrpsee::types::ErrorObjectOwned;
    use jsonrpsee::{PendingSubscriptionSink, RpcModule, SubscriptionMessage};
    use typed_rpc_eth_node::Node;
    use typed_rpc_eth_node::api::EthApi;
    use typed_rpc_eth_node::types::{BlockId, SubscriptionKind};

    /// The measured part of the `eth_` API.
    #[rpc(server, namespace = "eth")]
    pub trait Eth {
        #[method(name = "chainId")]
        async fn chain_id(&self) -> RpcResult<U64>;
        #[method(name = "blockNumber")]
        async fn block_number(&self) -> RpcResult<U64>;
        #[method(name = "getBalance")]
        async fn get_balance(&self, address: Address, block: Option<BlockId>) -> RpcResult<U256>;
        #[subscription(name = "subscribe" => "subscription", unsubscribe = "unsubscribe", item = typed_rpc_eth_node::types::SubscriptionItem)]
        async fn subscribe(&self, kind: SubscriptionKind) -> SubscriptionResult;
    }

    /// The node behind jsonrpsee.
    pub struct Server(pub Node);

    fn error(error: typed_rpc::ErrorObject) -> ErrorObjectOwned {
        let data = error.data().map(|data| data.to_owned());
        ErrorObjectOwned::owned(error.code() as i32, error.message().to_owned(), data)
    }

    #[async_trait]
    impl EthServer for Server {
        async fn chain_id(&self) -> RpcResult<U64> {
            EthApi::chain_id(&self.0).await.map_err(error)
        }

        async fn block_number(&self) -> RpcResult<U64> {
            EthApi::block_number(&self.0).await.map_err(error)
        }

        async fn get_balance(&self, address: Address, block: Option<BlockId>) -> RpcResult<U256> {
            EthApi::get_balance(&self.0, address, block).await.map_err(error)
        }

        async fn subscribe(&self, pending: PendingSubscriptionSink, kind: SubscriptionKind) -> SubscriptionResult {
            let items = EthApi::subscribe(&self.0, kind, None).await.map_err(error);
            let items = match items {
                Ok(items) => items,
                Err(error) => {
                    pending.reject(error).await;
                    return Ok(());
                }
            };
            let sink = pending.accept().await?;
            let (method, subscription) = (sink.method_name().to_owned(), sink.subscription_id());
            let mut items = std::pin::pin!(items);
            while let Some(item) = items.next().await {
                let item = item.map_err(error)?;
                let message = SubscriptionMessage::new(&method, subscription.clone(), &item)?;
                sink.send(message).await?;
            }
            Ok(())
        }
    }

    /// The module serving `node`.
    pub fn module(node: Node) -> RpcModule<()> {
        let mut module = RpcModule::new(());
        module.merge(Server(node).into_rpc()).expect("no duplicate names");
        module
    }
}

/// A batch of `n` `eth_getBalance` calls (the wallet pattern), entry `i`
/// asking for development account `i % 10` at `latest`, with id `i`.
pub fn balance_batch(n: usize, accounts: &[String]) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| {
            let address = &accounts[i % accounts.len()];
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_getBalance","params":["{address}","latest"]}}"#)
        })
        .collect();
    format!("[{}]", entries.join(","))
}
