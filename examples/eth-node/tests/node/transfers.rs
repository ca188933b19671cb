//! Signed transfers: admitted, mined, receipted, and the state at each block kept.

use alloy_consensus::transaction::SignerRecoverable;
use alloy_consensus::{Transaction, TxEnvelope};
use alloy_eips::eip2718::Decodable2718;
use alloy_primitives::{U64, U256};
use typed_rpc_eth_node::types::{BlockId, BlockNumberOrTag};
use typed_rpc_eth_node::units::ether;

use crate::support::{CHAIN_ID, GWEI, Tx, account, eth, node};

#[tokio::test]
async fn an_eip1559_transfer_is_mined_with_a_full_receipt() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    let raw = Tx::transfer(0, bob.address, 1_000).eip1559(&alice);
    let hash = eth.send_raw_transaction(raw.clone()).await.unwrap();

    assert_eq!(
        eth.block_number().await.unwrap(),
        U64::from(1),
        "a block per transaction"
    );
    let receipt = eth.get_transaction_receipt(hash).await.unwrap().unwrap();
    let block = eth
        .get_block_by_number(BlockNumberOrTag::Number(1), false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(receipt.transaction_hash, hash);
    assert_eq!(
        (
            receipt.block_hash,
            receipt.block_number,
            receipt.transaction_index
        ),
        (block.header.hash, 1, 0)
    );
    assert_eq!(
        (receipt.from, receipt.to),
        (alice.address, Some(bob.address))
    );
    assert_eq!((receipt.status, receipt.tx_type), (1, 2));
    assert_eq!(
        (receipt.gas_used, receipt.cumulative_gas_used),
        (21_000, 21_000)
    );
    assert_eq!(receipt.contract_address, None);
    assert!(receipt.logs.is_empty());
    // The base fee of block 1 plus the 1 gwei tip, under the 100 gwei cap.
    let base_fee = u128::from(block.header.base_fee_per_gas.unwrap());
    assert_eq!(receipt.effective_gas_price, base_fee + GWEI);

    let paid = U256::from(21_000u64) * U256::from(receipt.effective_gas_price);
    assert_eq!(
        eth.get_balance(bob.address, None).await.unwrap(),
        ether(10_000) + U256::from(1_000)
    );
    assert_eq!(
        eth.get_balance(alice.address, None).await.unwrap(),
        ether(10_000) - U256::from(1_000) - paid
    );
    assert_eq!(
        eth.get_transaction_count(alice.address, None)
            .await
            .unwrap(),
        U64::from(1)
    );
}

#[tokio::test]
async fn the_state_at_past_blocks_stays_readable() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    for nonce in 0..3 {
        eth.send_raw_transaction(Tx::transfer(nonce, bob.address, 5).legacy(&alice))
            .await
            .unwrap();
    }
    for number in 0..=3u64 {
        let at = Some(BlockId::Number(BlockNumberOrTag::Number(number)));
        assert_eq!(
            eth.get_balance(bob.address, at).await.unwrap(),
            ether(10_000) + U256::from(5 * number)
        );
        assert_eq!(
            eth.get_transaction_count(alice.address, at).await.unwrap(),
            U64::from(number)
        );
    }
    let block2 = eth
        .get_block_by_number(BlockNumberOrTag::Number(2), false)
        .await
        .unwrap()
        .unwrap();
    let by_hash = Some(BlockId::from(block2.header.hash));
    assert_eq!(
        eth.get_balance(bob.address, by_hash).await.unwrap(),
        ether(10_000) + U256::from(10)
    );
    let earliest = Some(BlockId::Number(BlockNumberOrTag::Earliest));
    assert_eq!(
        eth.get_balance(bob.address, earliest).await.unwrap(),
        ether(10_000)
    );

    let future = Some(BlockId::Number(BlockNumberOrTag::Number(9)));
    let err = eth.get_balance(bob.address, future).await.unwrap_err();
    assert_eq!(
        err.rpc_error().map(|error| (error.code(), error.message())),
        Some((-32001, "header not found"))
    );
}

#[tokio::test]
async fn a_transaction_rebuilds_from_its_fields_to_its_hash() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    for raw in [
        Tx::transfer(0, bob.address, 7).legacy(&alice),
        Tx::transfer(1, bob.address, 7).eip1559(&alice),
    ] {
        let hash = eth.send_raw_transaction(raw.clone()).await.unwrap();
        let tx = eth.get_transaction_by_hash(hash).await.unwrap().unwrap();
        let sent = TxEnvelope::decode_2718(&mut raw.as_ref()).unwrap();
        assert_eq!(tx.hash, hash);
        assert_eq!(tx.from, sent.recover_signer().unwrap());
        assert_eq!((tx.r, tx.s), (sent.signature().r(), sent.signature().s()));
        let parity = u64::from(sent.signature().v());
        if sent.is_legacy() {
            assert_eq!(tx.v, CHAIN_ID * 2 + 35 + parity, "EIP-155 v");
            assert_eq!(tx.y_parity, None);
            assert_eq!(tx.gas_price, 10 * GWEI);
        } else {
            assert_eq!((tx.v, tx.y_parity), (parity, Some(parity as u8)));
            assert_eq!(
                (tx.max_fee_per_gas, tx.max_priority_fee_per_gas),
                (Some(100 * GWEI), Some(GWEI))
            );
        }
        assert_eq!(
            (tx.chain_id, tx.nonce, tx.value, tx.gas),
            (Some(CHAIN_ID), sent.nonce(), U256::from(7), 21_000)
        );
        assert_eq!(tx.to, Some(bob.address));
        assert!(
            tx.block_hash.is_some() && tx.block_number.is_some() && tx.transaction_index == Some(0)
        );
    }
}

#[tokio::test]
async fn send_transaction_signs_with_a_development_key() {
    let node = node();
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    let request = typed_rpc_eth_node::types::CallRequest {
        from: Some(alice.address),
        to: Some(bob.address),
        value: Some(U256::from(42)),
        ..Default::default()
    };
    let hash = eth.send_transaction(request.clone()).await.unwrap();
    let receipt = eth.get_transaction_receipt(hash).await.unwrap().unwrap();
    assert_eq!(
        (receipt.status, receipt.gas_used, receipt.from),
        (1, 21_000, alice.address)
    );
    assert_eq!(
        eth.get_balance(bob.address, None).await.unwrap(),
        ether(10_000) + U256::from(42)
    );

    let stranger = typed_rpc_eth_node::types::CallRequest {
        from: Some(alloy_primitives::Address::repeat_byte(7)),
        ..request
    };
    let err = eth.send_transaction(stranger).await.unwrap_err();
    assert!(
        err.rpc_error()
            .unwrap()
            .message()
            .starts_with("unknown account"),
        "{err:?}"
    );
}

#[tokio::test]
async fn interval_mining_pools_transactions_until_the_next_block() {
    let mut config = typed_rpc_eth_node::NodeConfig::dev(CHAIN_ID).unwrap();
    config.block_time = Some(std::time::Duration::from_secs(3600));
    let node = typed_rpc_eth_node::Node::new(config);
    let eth = eth(&node);
    let (alice, bob) = (account(&node, 0), account(&node, 1));
    let first = eth
        .send_raw_transaction(Tx::transfer(0, bob.address, 1).eip1559(&alice))
        .await
        .unwrap();
    let second = eth
        .send_raw_transaction(Tx::transfer(1, bob.address, 1).eip1559(&alice))
        .await
        .unwrap();

    assert_eq!(eth.block_number().await.unwrap(), U64::ZERO);
    assert_eq!(
        eth.get_transaction_receipt(first).await.unwrap(),
        None,
        "null until mined"
    );
    let pending = eth.get_transaction_by_hash(first).await.unwrap().unwrap();
    assert_eq!((pending.block_hash, pending.block_number), (None, None));
    let pending_nonce = Some(BlockId::Number(BlockNumberOrTag::Pending));
    assert_eq!(
        eth.get_transaction_count(alice.address, pending_nonce)
            .await
            .unwrap(),
        U64::from(2)
    );
    assert_eq!(
        eth.get_transaction_count(alice.address, None)
            .await
            .unwrap(),
        U64::ZERO
    );

    let block = node.mine();
    assert_eq!(block.transactions.len(), 2);
    let receipt = eth.get_transaction_receipt(second).await.unwrap().unwrap();
    assert_eq!(
        (
            receipt.block_number,
            receipt.transaction_index,
            receipt.cumulative_gas_used
        ),
        (1, 1, 42_000)
    );
    assert_eq!(
        node.mine().transactions.len(),
        0,
        "an empty block when nothing waits"
    );
}
