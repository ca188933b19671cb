//! Hostile input on a stream connection: a message nested 100,000 deep is
//! read on a tokio worker's stack, answered, and the connection goes on.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use typed_rpc::transport::Server;
use typed_rpc::transport::stream::Framing;

use crate::support::deep::{DEEP, deep_object};
use crate::support::harness::router::{oracle, services};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_message_on_a_stream_connection_gets_its_answer() {
    // The connection reads the message to tell requests from responses
    // before the router sees it: both run on a worker's stack.
    let (client, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    let handle = Server::new(services::router()).serve_stream(read, write, Framing::Lines);
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    for deep in [deep_object(), "[".repeat(DEEP)] {
        client_write.write_all(deep.as_bytes()).await.unwrap();
        client_write.write_all(b"\n").await.unwrap();
        let reply = lines.next_line().await.unwrap().unwrap();
        oracle::check(deep.as_bytes(), Some(&reply)).unwrap_or_else(|err| panic!("{err}"));
    }
    // The connection is still there.
    client_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":7}\n")
        .await
        .unwrap();
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply, json!({"jsonrpc": "2.0", "result": "pong", "id": 7}));
    client_write.shutdown().await.unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), handle.stopped())
        .await
        .expect("the server stops when its peer closes");
}
