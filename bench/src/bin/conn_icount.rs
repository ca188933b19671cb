//! Runs one two-way connection case `N` times, for instruction counting
//! under `valgrind --tool=callgrind`: what the connection engine does per
//! message of a kind that is neither a request nor a response.
//!
//! ```text
//! conn_icount <case> <messages>
//! case: notify  N notifications (`notify`) to a server, then one `add`
//!       cancel  N cancel notices (`$/cancelRequest` for an id not in
//!               flight) to a server with the LSP cancel policy, then one `add`
//!       items   N items of a subscription (`count`) to a typed-rpc client,
//!               which reads them all from its stream
//! ```
//!
//! Both ends run in this process on one current-thread runtime, over an
//! in-memory pipe with newline framing; the other end is a few lines that
//! write fixed text, the same cost whatever typed-rpc does. Instructions per
//! message = (Ir(N2) - Ir(N1)) / (N2 - N1), which cancels the start-up and
//! the one request; `bench/conn_icount.sh` does exactly that.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use typed_rpc::client::ClientExt;
use typed_rpc::transport::stream::{FramedReader, FramedWriter, Framing};
use typed_rpc::transport::{Connection, Server};
use typed_rpc::{CancelPolicy, Context, Router, TransportKind};
use typed_rpc_bench::api::ours::{self, Bench as _};
use typed_rpc_bench::streams::NOTIFICATION;
use typed_rpc_bench::streams::ours::FeedClient;

/// The largest message either end reads.
const MAX: usize = 1 << 20;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [case, messages] = args.as_slice() else {
        eprintln!("usage: conn_icount <notify|cancel|items> <messages>");
        std::process::exit(2);
    };
    let messages: u64 = messages.parse().expect("a number of messages");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let done = runtime.block_on(async {
        match case.as_str() {
            "notify" => {
                let note = r#"{"jsonrpc":"2.0","method":"notify","params":[1,2]}"#;
                to_server(ours::router(), note, messages).await
            }
            "cancel" => {
                let router = Router::builder()
                    .service(ours::Server.into_service())
                    .cancel_notification(CancelPolicy::lsp())
                    .build()
                    .expect("one service");
                let notice = r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#;
                to_server(router, notice, messages).await
            }
            "items" => to_client(messages).await,
            other => panic!("unknown case {other}"),
        }
    });
    println!("{done}");
}

/// Sends `count` copies of `message` to a server on `router`, then one
/// request, whose reply (after them all) is returned.
async fn to_server(router: Router, message: &str, count: u64) -> String {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(ours);
    let handle = Server::new(router).serve_messages(
        FramedReader::new(read, Framing::Lines, MAX),
        FramedWriter::new(write, Framing::Lines),
        Context::new(TransportKind::Stream),
    );
    let (read, mut write) = tokio::io::split(theirs);
    let line = format!("{message}\n");
    let writing = async move {
        for _ in 0..count {
            write.write_all(line.as_bytes()).await.expect("written");
        }
        let request = "{\"jsonrpc\":\"2.0\",\"method\":\"add\",\"params\":[1,2],\"id\":1}\n";
        write.write_all(request.as_bytes()).await.expect("written");
        write
    };
    let reading = async {
        let mut reply = String::new();
        BufReader::new(read)
            .read_line(&mut reply)
            .await
            .expect("a reply");
        reply
    };
    let (write, reply) = tokio::join!(writing, reading);
    drop(write);
    handle.stopped().await;
    reply
}

/// Subscribes a typed-rpc client to `count(count)`, answered by a peer that
/// writes the items itself, and reads them all; returns their sum.
async fn to_client(count: u64) -> String {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(ours);
    let connection = Connection::connect(
        FramedReader::new(read, Framing::Lines, MAX),
        FramedWriter::new(write, Framing::Lines),
        Router::builder().build().expect("no services"),
    );
    let peer = tokio::spawn(peer_with_items(theirs, count));
    let client = FeedClient::new(connection.clone());
    let mut items = client.count(count).await.expect("subscribed");
    // The items start once the stream is registered: a peer that sent them
    // with its answer could outrun the registration (see `peer_with_items`).
    connection.notify("go", None).await.expect("sent");
    let mut sum = 0u64;
    for _ in 0..count {
        sum += items.next().await.expect("an item").expect("a number");
    }
    drop(items);
    drop((client, connection));
    peer.await.expect("the peer");
    sum.to_string()
}

/// Answers the subscription call with the id `1`, then, once the client
/// says `go`, writes `count` items.
async fn peer_with_items(end: DuplexStream, count: u64) {
    let (read, mut write) = tokio::io::split(end);
    let mut lines = BufReader::new(read).lines();
    let call = lines.next_line().await.expect("read").expect("the call");
    assert!(call.contains(r#""id":1"#), "the first call: {call}");
    write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\n")
        .await
        .expect("written");
    let go = lines.next_line().await.expect("read").expect("go");
    assert!(go.contains(r#""go""#), "go: {go}");
    for i in 0..count {
        let item = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"{NOTIFICATION}\",\"params\":{{\"subscription\":1,\"result\":{i}}}}}\n"
        );
        write.write_all(item.as_bytes()).await.expect("written");
    }
    // Read on until the client hangs up (its unsubscribe is not answered).
    while let Ok(Some(_)) = lines.next_line().await {}
}
