//! The exact JSON on the wire: hex quantities without leading zeros, even-length data,
//! `net_version` in decimal, params absent or positional, batches.

use serde_json::{Value, json};

use crate::support::node;

async fn call(router: &typed_rpc::Router, request: Value) -> Value {
    let reply = router
        .handle(request.to_string().as_bytes())
        .await
        .expect("a request is answered");
    serde_json::from_str(&reply).unwrap()
}

/// Whether `text` is a quantity as clients read it: `0x`, lowercase hex, no leading zero.
fn is_quantity(text: &str) -> bool {
    let Some(digits) = text.strip_prefix("0x") else {
        return false;
    };
    !digits.is_empty()
        && digits
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
        && (digits == "0" || !digits.starts_with('0'))
}

#[tokio::test]
async fn quantities_and_data_are_encoded_as_clients_read_them() {
    let router = node().router().unwrap();
    let reply = call(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}),
    )
    .await;
    assert_eq!(reply["result"], "0x7a69");
    let reply = call(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}),
    )
    .await;
    assert_eq!(reply["result"], "0x0");
    let reply = call(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "net_version"}),
    )
    .await;
    assert_eq!(reply["result"], "31337", "the one decimal string");
    let balance = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
        "params": ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "latest"]});
    assert_eq!(
        call(&router, balance).await["result"],
        "0x21e19e0c9bab2400000",
        "10 000 ether"
    );
    let code = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getCode",
        "params": ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0x0"]});
    assert_eq!(
        call(&router, code).await["result"],
        "0x",
        "no code: empty data"
    );
    let reply = call(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "web3_clientVersion"}),
    )
    .await;
    assert!(
        reply["result"]
            .as_str()
            .unwrap()
            .starts_with("typed-rpc-eth-node/v")
    );

    let block = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["0x0", false]});
    let block = call(&router, block).await["result"].clone();
    for field in [
        "number",
        "gasLimit",
        "gasUsed",
        "timestamp",
        "difficulty",
        "baseFeePerGas",
        "size",
        "totalDifficulty",
    ] {
        let value = block[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field} missing: {block}"));
        assert!(is_quantity(value), "{field}: {value}");
    }
    for (field, bytes) in [
        ("hash", 32),
        ("parentHash", 32),
        ("stateRoot", 32),
        ("logsBloom", 256),
        ("nonce", 8),
        ("miner", 20),
        ("extraData", 0),
    ] {
        let value = block[field].as_str().unwrap();
        assert_eq!(value.len(), 2 + 2 * bytes, "{field}: {value}");
        assert_eq!(value, value.to_lowercase());
    }
}

#[tokio::test]
async fn a_batch_of_a_hundred_calls_is_answered_in_one_array() {
    let router = node().router().unwrap();
    let batch: Vec<Value> = (0..100)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "eth_getBalance",
            "params": [format!("0x{:040x}", id), "latest"]})
        })
        .collect();
    let reply: Vec<Value> = serde_json::from_str(
        &router
            .handle(json!(batch).to_string().as_bytes())
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(reply.len(), 100);
    let mut ids: Vec<u64> = reply
        .iter()
        .map(|entry| entry["id"].as_u64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..100).collect::<Vec<_>>());
    assert!(reply.iter().all(|entry| entry["result"] == "0x0"));
}

#[tokio::test]
async fn fee_history_takes_its_count_as_a_quantity_or_a_number() {
    let router = node().router().unwrap();
    for count in [json!("0x1"), json!(1)] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_feeHistory", "params": [count, "latest", [25, 75]]});
        let reply = call(&router, request).await;
        assert_eq!(reply["result"]["oldestBlock"], "0x0", "{reply}");
        assert_eq!(
            reply["result"]["baseFeePerGas"],
            json!(["0x3b9aca00", "0x342770c0"])
        );
        assert_eq!(reply["result"]["reward"], json!([["0x0", "0x0"]]));
    }
}
