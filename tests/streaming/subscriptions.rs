//! Subscriptions over WebSocket, TCP and stdio-like streams, read by our
//! client and by a raw peer.

use std::sync::atomic::Ordering;

use typed_rpc::Router;
use typed_rpc::client::ClientExt;
use typed_rpc::transport::stream::Framing;
use typed_rpc::transport::{Connection, Limits, Server, ServerHandle};

use crate::api::{Head, Server as TickerServer, Ticker, TickerClient, settles};
use crate::connect;

pub async fn serve_ws(server: TickerServer, limits: Limits) -> ServerHandle {
    Server::new(Router::new(server.into_service()))
        .limits(limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

pub async fn serve_tcp(server: TickerServer) -> ServerHandle {
    Server::new(Router::new(server.into_service()))
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap()
}

/// Reads `count` items of `count(0, count)` and the end, over `connection`.
async fn counts_to_the_end(connection: Connection) {
    let client = TickerClient::new(connection);
    let mut items = client.count(0, 5).await.unwrap();
    let mut seen = Vec::new();
    while let Some(item) = tokio::time::timeout(connect::PATIENCE, items.next())
        .await
        .expect("the end is announced")
    {
        seen.push(item.unwrap());
    }
    assert_eq!(seen, [0, 1, 2, 3, 4]);
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn our_client_reads_a_subscription_to_its_end_over_websocket() {
    let handle = serve_ws(TickerServer::default(), Limits::default()).await;
    counts_to_the_end(connect::websocket(&handle).await).await;
}

#[tokio::test]
async fn our_client_reads_a_subscription_to_its_end_over_tcp() {
    let handle = serve_tcp(TickerServer::default()).await;
    counts_to_the_end(connect::tcp(&handle).await).await;
}

#[tokio::test]
async fn our_client_reads_a_subscription_over_an_in_memory_stream() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let server = Server::new(Router::new(TickerServer::default().into_service()));
    let (read, write) = tokio::io::split(server_end);
    let _served = server.serve_stream(read, write, Framing::Lines);
    let (read, write) = tokio::io::split(client_end);
    let connection =
        typed_rpc::transport::stream::StreamConnector::new(Framing::Lines).connect(read, write);
    counts_to_the_end(connection.with_timeout(connect::PATIENCE)).await;
}

#[tokio::test]
async fn dropping_the_stream_unsubscribes_and_drops_the_producer() {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = serve_ws(server, Limits::default()).await;
    let client = TickerClient::new(connect::websocket(&handle).await);
    let mut heads = client.subscribe("newHeads".into()).await.unwrap();
    let first: Head = heads.next().await.unwrap().unwrap();
    assert_eq!(first.number, "0x1");
    assert_eq!(heads.next().await.unwrap().unwrap().number, "0x2");
    assert_eq!(alive.load(Ordering::SeqCst), 1);
    drop(heads);
    assert!(settles(&alive, 0).await, "the producer is dropped");
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test]
async fn a_raw_peer_sees_the_id_first_then_notifications_then_true_and_silence() {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = serve_tcp(server).await;
    let mut peer = crate::raw::LinePeer::connect(handle.local_addr().unwrap()).await;
    peer.send(r#"{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"],"id":1}"#)
        .await;
    let answer = peer.next().await;
    assert_eq!(answer["id"], 1);
    let id = answer["result"].as_str().unwrap().to_owned();
    for n in 1..=2 {
        let note = peer.next().await;
        assert_eq!(note["method"], "eth_subscription");
        assert!(note.get("id").is_none());
        assert_eq!(note["params"]["subscription"], id.as_str());
        assert_eq!(note["params"]["result"]["number"], format!("0x{n:x}"));
    }
    let unsubscribe =
        format!(r#"{{"jsonrpc":"2.0","method":"eth_unsubscribe","params":["{id}"],"id":2}}"#);
    peer.send(&unsubscribe).await;
    loop {
        let message = peer.next().await;
        if message["id"] == 2 {
            assert_eq!(message["result"], true);
            break;
        }
        assert_eq!(
            message["method"], "eth_subscription",
            "only items before the answer"
        );
    }
    assert!(peer.silent_for(std::time::Duration::from_millis(150)).await);
    assert!(settles(&alive, 0).await);
    // A second unsubscribe finds nothing live.
    peer.send(&unsubscribe.replace(r#""id":2"#, r#""id":3"#))
        .await;
    assert_eq!(peer.next().await["result"], false);
}

#[tokio::test]
async fn two_floods_on_one_connection_take_turns_and_calls_are_still_answered() {
    let handle = serve_tcp(TickerServer::default()).await;
    let mut peer = crate::raw::LinePeer::connect(handle.local_addr().unwrap()).await;
    for id in [1, 2] {
        let flood = format!(r#"{{"jsonrpc":"2.0","method":"flood","params":[1000000],"id":{id}}}"#);
        peer.send(&flood).await;
    }
    let mut subscriptions = Vec::new();
    let mut items = std::collections::HashMap::<String, usize>::new();
    while items.values().sum::<usize>() < 4000 {
        let message = peer.next().await;
        match message["params"]["subscription"].as_str() {
            Some(id) => *items.entry(id.to_owned()).or_default() += 1,
            None => subscriptions.push(message["result"].as_str().unwrap().to_owned()),
        }
    }
    assert_eq!(subscriptions.len(), 2, "both subscribed: {items:?}");
    for id in &subscriptions {
        assert!(items[id] >= 1000, "each stream gets its turns: {items:?}");
    }
    // A call behind the floods is answered, after at most what the buffers hold.
    peer.send(r#"{"jsonrpc":"2.0","method":"ping","id":3}"#)
        .await;
    let mut behind = 0;
    while peer.next().await["id"] != 3 {
        behind += 1;
        assert!(behind < 200_000, "the call is answered");
    }
}

#[tokio::test]
async fn closing_the_connection_drops_the_producer() {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = serve_tcp(server).await;
    let connection = connect::tcp(&handle).await;
    let client = TickerClient::new(connection);
    let mut items = client.forever(5).await.unwrap();
    assert_eq!(items.next().await.unwrap().unwrap(), 0);
    drop(items);
    drop(client);
    assert!(settles(&alive, 0).await);
}

#[tokio::test]
async fn subscriptions_beyond_the_connection_s_limit_are_refused() {
    let limits = Limits::default().max_subscriptions(2);
    let handle = serve_ws(TickerServer::default(), limits).await;
    let connection = connect::websocket(&handle).await;
    let client = TickerClient::new(connection.clone());
    let _one = client.forever(50).await.unwrap();
    let _two = client.forever(50).await.unwrap();
    let err = client.forever(50).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32000);
    assert_eq!(err.rpc_error().unwrap().message(), "Too many subscriptions");
    // Plain calls are still served.
    let pong: String = connection.call("ping", None).await.unwrap();
    assert_eq!(pong, "pong");
}

#[tokio::test]
async fn subscriptions_beyond_the_server_s_limit_are_refused_on_any_connection() {
    let limits = Limits::default().max_server_subscriptions(2);
    let handle = serve_ws(TickerServer::default(), limits).await;
    let first = TickerClient::new(connect::websocket(&handle).await);
    let second = TickerClient::new(connect::websocket(&handle).await);
    let one = first.forever(50).await.unwrap();
    let _two = second.forever(50).await.unwrap();
    let err = second.forever(50).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().message(), "Too many subscriptions");
    // A place given back is free again, for any connection.
    drop(one);
    let mut again = None;
    for _ in 0..100 {
        if let Ok(items) = second.forever(50).await {
            again = Some(items);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(again.is_some(), "the unsubscribed place was given back");
}

#[tokio::test]
async fn a_producer_that_panics_ends_its_subscription_with_an_internal_error() {
    let handle = serve_tcp(TickerServer::default()).await;
    let client = TickerClient::new(connect::tcp(&handle).await);
    let mut items = client.panicky().await.unwrap();
    assert_eq!(items.next().await.unwrap().unwrap(), 0);
    let err = items.next().await.unwrap().unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32603);
    assert!(items.next().await.is_none());
    assert_eq!(client.ping().await.unwrap(), "pong");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_makes_room_from_idle_connections_never_from_a_streaming_one() {
    let server = TickerServer::default();
    let alive = server.alive.clone();
    let handle = Server::new(Router::new(server.into_service()))
        .limits(Limits::default().max_connections(2))
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap();
    let streaming = TickerClient::new(connect::tcp(&handle).await);
    let mut items = streaming.forever(20).await.unwrap();
    // Newcomers, each left idle, take the other slot in turn: the server
    // is full, and each time makes room from an idle connection.
    let mut newcomers = Vec::new();
    for _ in 0..3 {
        let newcomer = TickerClient::new(connect::tcp(&handle).await);
        assert_eq!(newcomer.ping().await.unwrap(), "pong");
        newcomers.push(newcomer);
        // Past the idle time a full server lets a connection have.
        tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
        // The subscription still streams.
        for _ in 0..3 {
            let item = tokio::time::timeout(connect::PATIENCE, items.next()).await;
            let item = item.expect("items still come").expect("the stream goes on");
            item.expect("the streaming connection is never the one closed");
        }
    }
    assert_eq!(alive.load(Ordering::SeqCst), 1, "its producer still runs");
}

/// What a client's handlers were sent: each `note` notification's params.
#[typed_rpc::rpc]
trait Notes {
    #[notification(name = "note")]
    async fn note(&self, #[params] params: serde_json::Value);
}

#[derive(Clone, Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>);

impl Notes for Seen {
    async fn note(&self, params: serde_json::Value) {
        self.0.lock().unwrap().push(params);
    }
}

#[tokio::test]
async fn items_for_a_subscription_no_call_named_are_kept_from_the_handlers() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use typed_rpc::transport::stream::{FramedReader, FramedWriter};

    let (client_end, peer_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(client_end);
    let seen = Seen::default();
    let connection = Connection::connect(
        FramedReader::new(read, Framing::Lines, 1 << 20),
        FramedWriter::new(write, Framing::Lines),
        Router::new(seen.clone().into_service()),
    )
    .with_timeout(connect::PATIENCE);
    let (read, mut write) = tokio::io::split(peer_end);
    let peer = tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        let call = lines.next_line().await.unwrap().unwrap();
        assert!(call.contains(r#""method":"eth_subscribe""#), "{call}");
        for line in [
            r#"{"jsonrpc":"2.0","result":"a","id":1}"#,
            r#"{"jsonrpc":"2.0","method":"note","params":{"plain":1}}"#,
            // Named by no call of this client's, though shaped as an item
            // and sent under a handler's name: kept for a call yet to come.
            r#"{"jsonrpc":"2.0","method":"note","params":{"subscription":"z","result":1}}"#,
            r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"z","result":{"number":"0x9","hash":"0x"}}}"#,
            r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"a","result":{"number":"0x1","hash":"0x"}}}"#,
            r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"a"}}"#,
            // Run after everything before it, in order.
            r#"{"jsonrpc":"2.0","method":"note","params":{"last":1}}"#,
        ] {
            write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
        // Read on (the unsubscribe) until the client hangs up.
        while let Ok(Some(_)) = lines.next_line().await {}
    });
    let client = TickerClient::new(connection);
    let mut heads = client.subscribe("newHeads".into()).await.unwrap();
    let mut numbers = Vec::new();
    while let Some(head) = tokio::time::timeout(connect::PATIENCE, heads.next())
        .await
        .expect("the end comes")
    {
        numbers.push(head.unwrap().number);
    }
    assert_eq!(
        numbers,
        ["0x1"],
        "only the items of the subscription called"
    );
    let last = serde_json::json!({"last": 1});
    let ran_all = async {
        while !seen.0.lock().unwrap().contains(&last) {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(connect::PATIENCE, ran_all)
        .await
        .expect("the last note runs");
    assert_eq!(
        *seen.0.lock().unwrap(),
        [serde_json::json!({"plain": 1}), last],
        "the handlers saw the plain notes only"
    );
    drop((heads, client));
    peer.await.unwrap();
}
