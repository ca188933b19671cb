//! Transactions and params the node refuses, each with the error clients expect.

use alloy_primitives::Bytes;
use typed_rpc::ErrorObject;

use crate::support::{Tx, account, eth, node};

fn refusal(result: Result<impl std::fmt::Debug, typed_rpc::ClientError>) -> ErrorObject {
    result
        .expect_err("refused")
        .rpc_error()
        .expect("an error object")
        .clone()
}

#[tokio::test]
async fn a_replay_is_refused_as_nonce_too_low() {
    let node = node();
    let eth = eth(&node);
    let raw = Tx::transfer(0, account(&node, 1).address, 1).eip1559(&account(&node, 0));
    eth.send_raw_transaction(raw.clone()).await.unwrap();
    let error = refusal(eth.send_raw_transaction(raw).await);
    assert_eq!(error.code(), -32003);
    // ethers' NONCE_EXPIRED and viem's NonceTooLowError match these words.
    assert!(
        error.message().contains("already known") || error.message().contains("nonce too low"),
        "{error}"
    );

    let reused = Tx::transfer(0, account(&node, 2).address, 1).eip1559(&account(&node, 0));
    let error = refusal(eth.send_raw_transaction(reused).await);
    assert!(error.message().starts_with("nonce too low"), "{error}");
    let ahead = Tx::transfer(5, account(&node, 2).address, 1).eip1559(&account(&node, 0));
    assert!(
        refusal(eth.send_raw_transaction(ahead).await)
            .message()
            .starts_with("nonce too high")
    );
}

#[tokio::test]
async fn an_unfunded_sender_is_refused_as_insufficient_funds() {
    let node = node();
    let eth = eth(&node);
    let stranger = typed_rpc_eth_node::accounts::derive(
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        1,
    )
    .unwrap();
    let raw = Tx::transfer(0, account(&node, 0).address, 1).eip1559(&stranger[0]);
    let error = refusal(eth.send_raw_transaction(raw).await);
    assert_eq!(error.code(), -32003);
    assert!(
        error
            .message()
            .starts_with("insufficient funds for gas * price + value"),
        "{error}"
    );
    assert_eq!(
        eth.block_number().await.unwrap().to::<u64>(),
        0,
        "nothing mined"
    );
}

#[tokio::test]
async fn a_wrong_chain_id_is_refused() {
    let node = node();
    let eth = eth(&node);
    let tx = Tx {
        chain_id: 1,
        ..Tx::transfer(0, account(&node, 1).address, 1)
    };
    let error = refusal(
        eth.send_raw_transaction(tx.legacy(&account(&node, 0)))
            .await,
    );
    assert_eq!(
        (error.code(), error.message()),
        (-32003, "invalid chain id for signer: have 1, want 31337")
    );
}

#[tokio::test]
async fn bytes_that_are_no_transaction_are_invalid_input() {
    let node = node();
    let eth = eth(&node);
    let error = refusal(
        eth.send_raw_transaction(Bytes::from_static(&[0x02, 0xc0]))
            .await,
    );
    assert_eq!(error.code(), -32000);
    assert!(
        error
            .message()
            .starts_with("failed to decode signed transaction"),
        "{error}"
    );
}

#[tokio::test]
async fn malformed_params_are_invalid_params_with_a_reason() {
    let router = node().router().unwrap();
    let cases = [
        (r#"["0x12", "latest"]"#, "address", "invalid string length"),
        (
            r#"["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xzz"]"#,
            "block",
            "",
        ),
        (
            r#"["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "newest"]"#,
            "block",
            "",
        ),
    ];
    for (params, param, reason) in cases {
        let request =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{params}}}"#);
        let reply: serde_json::Value =
            serde_json::from_str(&router.handle(request.as_bytes()).await.unwrap()).unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{params}: {reply}");
        assert_eq!(reply["error"]["data"]["param"], param, "{params}: {reply}");
        assert!(
            reply["error"]["data"]["reason"]
                .as_str()
                .unwrap()
                .contains(reason),
            "{reply}"
        );
    }
}

#[tokio::test]
async fn an_unknown_method_is_an_error_not_a_hang() {
    let router = node().router().unwrap();
    let reply = router
        .handle(br#"{"jsonrpc":"2.0","id":1,"method":"eth_fillTransaction","params":[{}]}"#)
        .await
        .unwrap();
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}"#
    );
}
