//! `eth_subscribe` over WebSocket: new heads and filtered logs, through our
//! typed client and as raw frames, and `eth_unsubscribe`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use typed_rpc::transport::ws::WsConnector;
use typed_rpc_eth_node::api::EthApiClient;
use typed_rpc_eth_node::types::{LogFilter, OneOrMany, SubscriptionItem, SubscriptionKind};

use crate::support::{Tx, account, calldata, deploy_counter, eth, incremented_topic, node, serve};

const PATIENCE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn new_heads_and_filtered_logs_arrive_as_notifications() {
    let node = node();
    let local = eth(&node);
    let counter = deploy_counter(&local, &node, 0, 0).await;
    let (handle, address) = serve(&node).await;
    let ws = EthApiClient::new(
        WsConnector::new()
            .connect(&format!("ws://{address}/"))
            .await
            .unwrap(),
    );
    let mut heads = ws
        .subscribe(SubscriptionKind::NewHeads, None)
        .await
        .unwrap();
    let filter = LogFilter {
        address: Some(OneOrMany::One(counter)),
        ..Default::default()
    };
    let mut logs = ws
        .subscribe(SubscriptionKind::Logs, Some(filter))
        .await
        .unwrap();
    let other = LogFilter {
        address: Some(OneOrMany::One(account(&node, 5).address)),
        ..Default::default()
    };
    let mut unmatched = ws
        .subscribe(SubscriptionKind::Logs, Some(other))
        .await
        .unwrap();

    let alice = account(&node, 0);
    let hash = local
        .send_raw_transaction(Tx::call(1, counter, calldata("increment()", &[])).eip1559(&alice))
        .await
        .unwrap();

    let head = tokio::time::timeout(PATIENCE, heads.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let SubscriptionItem::Header(head) = head else {
        panic!("a header: {head:?}")
    };
    assert_eq!(head.number, 2);
    let log = tokio::time::timeout(PATIENCE, logs.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let SubscriptionItem::Log(log) = log else {
        panic!("a log: {log:?}")
    };
    assert_eq!(
        (log.address, log.transaction_hash, log.block_hash),
        (counter, hash, head.hash)
    );
    assert_eq!(log.topics[0], incremented_topic());
    assert!(
        tokio::time::timeout(Duration::from_millis(200), unmatched.next())
            .await
            .is_err(),
        "another address"
    );
    handle.shutdown().await;
}

#[tokio::test]
async fn the_raw_frames_are_what_ethereum_clients_parse() {
    let node = node();
    let (handle, address) = serve(&node).await;
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/"))
        .await
        .unwrap();
    let mut send = async |request: Value| {
        socket
            .send(Message::text(request.to_string()))
            .await
            .unwrap()
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}))
        .await;
    let reply = next_json(&mut socket).await;
    let id = reply["result"]
        .as_str()
        .expect("a subscription id")
        .to_owned();
    assert!(id.starts_with("0x"), "{reply}");

    node.mine();
    let notification = next_json(&mut socket).await;
    assert_eq!(notification["method"], "eth_subscription", "{notification}");
    assert_eq!(notification["params"]["subscription"], id.as_str());
    assert_eq!(notification["params"]["result"]["number"], "0x1");
    assert!(notification["params"]["result"]["parentHash"].is_string());
    assert!(notification.get("id").is_none());

    let unsubscribe =
        json!({"jsonrpc": "2.0", "id": 2, "method": "eth_unsubscribe", "params": [id]});
    socket
        .send(Message::text(unsubscribe.to_string()))
        .await
        .unwrap();
    assert_eq!(
        next_json(&mut socket).await,
        json!({"jsonrpc": "2.0", "result": true, "id": 2})
    );
    node.mine();
    let quiet = tokio::time::timeout(Duration::from_millis(300), socket.next()).await;
    assert!(quiet.is_err(), "nothing after eth_unsubscribe: {quiet:?}");

    let bad = json!({"jsonrpc": "2.0", "id": 3, "method": "eth_subscribe", "params": ["newPendingHeads"]});
    socket.send(Message::text(bad.to_string())).await.unwrap();
    assert_eq!(next_json(&mut socket).await["error"]["code"], -32602);
    handle.shutdown().await;
}

async fn next_json<S>(socket: &mut S) -> Value
where
    S: futures_util::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Message::Text(text) = message {
            return serde_json::from_str(&text).unwrap();
        }
    }
}
