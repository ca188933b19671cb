//! Blocks by tag, number and hash, with hashes or whole transactions, and fee history.

use alloy_primitives::B256;
use typed_rpc_eth_node::types::{BlockCount, BlockNumberOrTag, BlockTransactions};

use crate::support::{Tx, account, eth, node};

#[tokio::test]
async fn blocks_are_found_by_every_tag_and_chain_by_hash() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    let hash = eth
        .send_raw_transaction(Tx::transfer(0, bob.address, 1).eip1559(&alice))
        .await
        .unwrap();

    let genesis = eth
        .get_block_by_number(BlockNumberOrTag::Earliest, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (genesis.header.number, genesis.header.parent_hash),
        (0, B256::ZERO)
    );
    for tag in [
        BlockNumberOrTag::Latest,
        BlockNumberOrTag::Pending,
        BlockNumberOrTag::Safe,
        BlockNumberOrTag::Finalized,
        BlockNumberOrTag::Number(1),
    ] {
        let block = eth.get_block_by_number(tag, false).await.unwrap().unwrap();
        assert_eq!(block.header.number, 1, "{tag}");
        assert_eq!(block.header.parent_hash, genesis.header.hash);
        assert_eq!(block.transactions, BlockTransactions::Hashes(vec![hash]));
    }
    assert_eq!(
        eth.get_block_by_number(BlockNumberOrTag::Number(2), false)
            .await
            .unwrap(),
        None,
        "past the head"
    );

    let head = eth
        .get_block_by_number(BlockNumberOrTag::Latest, true)
        .await
        .unwrap()
        .unwrap();
    let BlockTransactions::Full(txs) = &head.transactions else {
        panic!("full transactions asked for")
    };
    assert_eq!(
        (txs[0].hash, txs[0].block_hash),
        (hash, Some(head.header.hash))
    );
    assert_eq!(
        eth.get_block_by_hash(head.header.hash, true)
            .await
            .unwrap()
            .as_ref(),
        Some(&head)
    );
    assert_eq!(
        eth.get_block_by_hash(B256::repeat_byte(9), false)
            .await
            .unwrap(),
        None
    );
    assert_eq!(head.header.gas_used, 21_000);
    assert!(head.size > 0 && head.header.timestamp > genesis.header.timestamp);
    assert_ne!(head.header.state_root, genesis.header.state_root);
    let count = eth
        .get_block_transaction_count_by_number(BlockNumberOrTag::Latest)
        .await
        .unwrap();
    assert_eq!(count.map(|count| count.to::<u64>()), Some(1));
}

#[tokio::test]
async fn the_block_hash_is_the_keccak_of_the_header() {
    // Rebuilt from the API's fields with alloy's own header type.
    let node = node();
    let eth = eth(&node);
    eth.send_raw_transaction(
        Tx::transfer(0, account(&node, 1).address, 1).legacy(&account(&node, 0)),
    )
    .await
    .unwrap();
    let block = eth
        .get_block_by_number(BlockNumberOrTag::Latest, false)
        .await
        .unwrap()
        .unwrap();
    let h = &block.header;
    let header = alloy_consensus::Header {
        parent_hash: h.parent_hash,
        ommers_hash: h.sha3_uncles,
        beneficiary: h.miner,
        state_root: h.state_root,
        transactions_root: h.transactions_root,
        receipts_root: h.receipts_root,
        logs_bloom: h.logs_bloom,
        difficulty: h.difficulty,
        number: h.number,
        gas_limit: h.gas_limit,
        gas_used: h.gas_used,
        timestamp: h.timestamp,
        extra_data: h.extra_data.clone(),
        mix_hash: h.mix_hash,
        nonce: h.nonce,
        base_fee_per_gas: h.base_fee_per_gas,
        withdrawals_root: h.withdrawals_root,
        blob_gas_used: h.blob_gas_used,
        excess_blob_gas: h.excess_blob_gas,
        parent_beacon_block_root: h.parent_beacon_block_root,
        requests_hash: None,
        block_access_list_hash: None,
        slot_number: None,
    };
    assert_eq!(header.hash_slow(), h.hash);
}

#[tokio::test]
async fn base_fees_follow_eip1559_and_fee_history_reports_them() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    for nonce in 0..3 {
        eth.send_raw_transaction(Tx::transfer(nonce, bob.address, 1).eip1559(&alice))
            .await
            .unwrap();
    }
    let history = eth
        .fee_history(BlockCount(2), BlockNumberOrTag::Latest, Some(vec![50.0]))
        .await
        .unwrap();
    assert_eq!(history.oldest_block, 2);
    assert_eq!(
        history.base_fee_per_gas.len(),
        3,
        "one per block and the next"
    );
    // EIP-1559: 21 000 gas against a 15 M target lowers the next base fee by nearly an eighth.
    let next = |parent: u128| parent - parent * (15_000_000 - 21_000) / 15_000_000 / 8;
    assert_eq!(
        history.base_fee_per_gas[1],
        next(history.base_fee_per_gas[0])
    );
    assert_eq!(
        history.base_fee_per_gas[2],
        next(history.base_fee_per_gas[1])
    );
    assert_eq!(history.gas_used_ratio, vec![21_000.0 / 30_000_000.0; 2]);
    let reward = history.reward.unwrap();
    assert_eq!(reward.len(), 2);
    assert_eq!(reward[0][0].0, 1_000_000_000, "the 1 gwei tip each paid");

    let genesis_fee = eth
        .get_block_by_number(BlockNumberOrTag::Earliest, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(genesis_fee.header.base_fee_per_gas, Some(1_000_000_000));
    let price = eth.gas_price().await.unwrap();
    assert_eq!(
        price.to::<u128>(),
        history.base_fee_per_gas[2] + 1_000_000_000
    );
}
