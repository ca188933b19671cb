//! The Counter contract on revm: deployed, called, reverted, estimated, and its logs found.

use alloy_primitives::{B256, Bytes, U256};
use typed_rpc_eth_node::types::{
    BlockId, BlockNumberOrTag, BlockTransactions, CallRequest, LogFilter, OneOrMany,
};

use crate::support::{
    Tx, account, calldata, counter_deployment, deploy_counter, eth, incremented_topic, node,
};

fn call_of(to: alloy_primitives::Address, data: Vec<u8>) -> CallRequest {
    CallRequest {
        to: Some(to),
        input: Some(data.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_deployed_contract_runs_and_keeps_its_state() {
    let node = node();
    let eth = eth(&node);
    let counter = deploy_counter(&eth, &node, 0, 5).await;
    assert!(!eth.get_code(counter, None).await.unwrap().is_empty());
    let count = || eth.call(call_of(counter, calldata("count()", &[])), None);
    assert_eq!(
        count().await.unwrap(),
        Bytes::from(U256::from(5).to_be_bytes::<32>())
    );

    let alice = account(&node, 0);
    let hash = eth
        .send_raw_transaction(Tx::call(1, counter, calldata("add(uint256)", &[10])).eip1559(&alice))
        .await
        .unwrap();
    let receipt = eth.get_transaction_receipt(hash).await.unwrap().unwrap();
    assert_eq!(receipt.status, 1);
    assert_eq!(
        count().await.unwrap(),
        Bytes::from(U256::from(15).to_be_bytes::<32>())
    );
    assert_eq!(
        eth.get_storage_at(counter, U256::ZERO, None).await.unwrap(),
        B256::from(U256::from(15))
    );

    // The event: from the contract, topics [signature, indexed sender], data the new count.
    let [log] = receipt.logs.as_slice() else {
        panic!("one log: {:?}", receipt.logs)
    };
    assert_eq!(log.address, counter);
    assert_eq!(
        log.topics,
        vec![incremented_topic(), alice.address.into_word()]
    );
    assert_eq!(log.data, Bytes::from(U256::from(15).to_be_bytes::<32>()));
    assert_eq!(
        (log.transaction_hash, log.block_number, log.log_index),
        (hash, 2, 0)
    );
    assert!(
        receipt
            .logs_bloom
            .contains_input(alloy_primitives::BloomInput::Raw(counter.as_slice()))
    );

    // State at the deployment's block: 5.
    let at1 = Some(BlockId::Number(BlockNumberOrTag::Number(1)));
    let old = eth
        .call(call_of(counter, calldata("count()", &[])), at1)
        .await
        .unwrap();
    assert_eq!(old, Bytes::from(U256::from(5).to_be_bytes::<32>()));
}

#[tokio::test]
async fn a_revert_is_code_3_with_its_data_in_calls_and_estimates() {
    let node = node();
    let eth = eth(&node);
    let counter = deploy_counter(&eth, &node, 0, 0).await;

    let error = eth
        .call(call_of(counter, calldata("add(uint256)", &[0])), None)
        .await
        .unwrap_err();
    let error = error.rpc_error().unwrap();
    assert_eq!(
        (error.code(), error.message()),
        (3, "execution reverted: amount must be positive")
    );
    let data: Bytes = error.data_as().unwrap().unwrap();
    assert_eq!(&data[..4], &[0x08, 0xc3, 0x79, 0xa0], "Error(string)");

    let error = eth
        .estimate_gas(call_of(counter, calldata("fail()", &[])), None)
        .await
        .unwrap_err();
    let error = error.rpc_error().unwrap();
    assert_eq!((error.code(), error.message()), (3, "execution reverted"));
    assert_eq!(error.data().unwrap().get(), r#""0x""#);

    // Mined anyway (with gas given), a revert is a receipt with status 0.
    let alice = account(&node, 0);
    let hash = eth
        .send_raw_transaction(Tx::call(1, counter, calldata("add(uint256)", &[0])).eip1559(&alice))
        .await
        .unwrap();
    let receipt = eth.get_transaction_receipt(hash).await.unwrap().unwrap();
    assert_eq!(receipt.status, 0);
    assert!(receipt.logs.is_empty());
}

#[tokio::test]
async fn gas_is_estimated_by_running_the_call() {
    let node = node();
    let eth = eth(&node);
    let alice = account(&node, 0);
    let transfer = CallRequest {
        from: Some(alice.address),
        to: Some(account(&node, 1).address),
        value: Some(U256::from(1)),
        ..Default::default()
    };
    assert_eq!(
        eth.estimate_gas(transfer, None).await.unwrap().to::<u64>(),
        21_000
    );

    let deploy = CallRequest {
        from: Some(alice.address),
        input: Some(counter_deployment(1).into()),
        ..Default::default()
    };
    let estimate = eth.estimate_gas(deploy, None).await.unwrap().to::<u64>();
    let counter = deploy_counter(&eth, &node, 0, 1).await;
    let latest = eth
        .get_block_by_number(BlockNumberOrTag::Latest, false)
        .await
        .unwrap()
        .unwrap();
    let BlockTransactions::Hashes(hashes) = latest.transactions else {
        panic!("hashes asked for")
    };
    let receipt_gas = eth
        .get_transaction_receipt(hashes[0])
        .await
        .unwrap()
        .unwrap()
        .gas_used;
    assert!(
        estimate >= receipt_gas && estimate < receipt_gas * 11 / 10,
        "{estimate} vs {receipt_gas}"
    );

    // Enough, and not far over: the estimate runs.
    let increment = CallRequest {
        from: Some(alice.address),
        ..call_of(counter, calldata("increment()", &[]))
    };
    let estimate = eth.estimate_gas(increment, None).await.unwrap().to::<u64>();
    let hash = eth
        .send_raw_transaction(
            Tx {
                gas_limit: estimate,
                ..Tx::call(1, counter, calldata("increment()", &[]))
            }
            .eip1559(&alice),
        )
        .await
        .unwrap();
    assert_eq!(
        eth.get_transaction_receipt(hash)
            .await
            .unwrap()
            .unwrap()
            .status,
        1
    );
}

#[tokio::test]
async fn get_logs_filters_by_range_address_and_topics() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    let first = deploy_counter(&eth, &node, 0, 0).await; // block 1
    let second = deploy_counter(&eth, &node, 1, 0).await; // block 2
    eth.send_raw_transaction(Tx::call(2, first, calldata("increment()", &[])).eip1559(&alice))
        .await
        .unwrap(); // 3
    eth.send_raw_transaction(Tx::call(0, second, calldata("increment()", &[])).eip1559(&bob))
        .await
        .unwrap(); // 4
    eth.send_raw_transaction(Tx::call(3, first, calldata("increment()", &[])).eip1559(&alice))
        .await
        .unwrap(); // 5

    let range = |from: u64, to: u64| LogFilter {
        from_block: Some(BlockNumberOrTag::Number(from)),
        to_block: Some(BlockNumberOrTag::Number(to)),
        ..Default::default()
    };
    let blocks = |logs: Vec<typed_rpc_eth_node::types::RpcLog>| {
        logs.iter().map(|log| log.block_number).collect::<Vec<_>>()
    };
    assert_eq!(blocks(eth.get_logs(range(0, 5)).await.unwrap()), [3, 4, 5]);
    assert_eq!(blocks(eth.get_logs(range(4, 4)).await.unwrap()), [4]);
    assert_eq!(
        blocks(eth.get_logs(LogFilter::default()).await.unwrap()),
        [5],
        "latest to latest"
    );
    let by_address = LogFilter {
        address: Some(OneOrMany::One(first)),
        ..range(0, 5)
    };
    assert_eq!(blocks(eth.get_logs(by_address).await.unwrap()), [3, 5]);
    let by_both = LogFilter {
        address: Some(OneOrMany::Many(vec![first, second])),
        ..range(0, 5)
    };
    assert_eq!(blocks(eth.get_logs(by_both).await.unwrap()), [3, 4, 5]);
    let by_sender = LogFilter {
        topics: Some(vec![
            Some(OneOrMany::One(incremented_topic())),
            Some(OneOrMany::One(bob.address.into_word())),
        ]),
        ..range(0, 5)
    };
    assert_eq!(blocks(eth.get_logs(by_sender).await.unwrap()), [4]);
    let wildcard_first = LogFilter {
        topics: Some(vec![None, Some(OneOrMany::One(alice.address.into_word()))]),
        ..range(0, 5)
    };
    assert_eq!(blocks(eth.get_logs(wildcard_first).await.unwrap()), [3, 5]);
    let nothing = LogFilter {
        topics: Some(vec![Some(OneOrMany::One(B256::repeat_byte(1)))]),
        ..range(0, 5)
    };
    assert!(eth.get_logs(nothing).await.unwrap().is_empty());

    let block4 = eth
        .get_block_by_number(BlockNumberOrTag::Number(4), false)
        .await
        .unwrap()
        .unwrap();
    let by_hash = LogFilter {
        block_hash: Some(block4.header.hash),
        ..Default::default()
    };
    assert_eq!(blocks(eth.get_logs(by_hash).await.unwrap()), [4]);
}
