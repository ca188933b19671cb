//! A peer that sends a subscription's items right behind its answer, or
//! ahead of it: our client keeps every item after the answer, in order, at
//! any pace it reads, and says so when items before the answer were too many.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use typed_rpc::ClientError;
use typed_rpc::client::TransportErrorKind;
use typed_rpc::transport::Connection;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;

use crate::api::{Head, TickerClient};
use crate::connect::PATIENCE;

/// The other end of the client's connection, written by hand.
enum Peer {
    Lines {
        read: Lines<BufReader<ReadHalf<DuplexStream>>>,
        write: WriteHalf<DuplexStream>,
    },
    WebSocket(Box<WebSocketStream<TcpStream>>),
}

impl Peer {
    /// A client connected over newline-delimited framing to a raw peer.
    fn lines() -> (Connection, Peer) {
        let (client_end, peer_end) = tokio::io::duplex(1 << 12);
        let (read, write) = tokio::io::split(client_end);
        let connection = StreamConnector::new(Framing::Lines).connect(read, write);
        let (read, write) = tokio::io::split(peer_end);
        let read = BufReader::new(read).lines();
        (
            connection.with_timeout(PATIENCE),
            Peer::Lines { read, write },
        )
    }

    /// A client connected over WebSocket to a raw peer.
    async fn websocket() -> (Connection, Peer) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/", listener.local_addr().unwrap());
        let accept = async {
            let (tcp, _) = listener.accept().await.unwrap();
            tokio_tungstenite::accept_async(tcp).await.unwrap()
        };
        let connector = WsConnector::new();
        let (connection, socket) = tokio::join!(connector.connect(&url), accept);
        let connection = connection.unwrap().with_timeout(PATIENCE);
        (connection, Peer::WebSocket(Box::new(socket)))
    }

    /// The next message the client sent, `None` once it hung up.
    async fn next(&mut self) -> Option<String> {
        match self {
            Peer::Lines { read, .. } => read.next_line().await.ok().flatten(),
            Peer::WebSocket(socket) => loop {
                match socket.next().await? {
                    Ok(Message::Text(text)) => return Some(text.to_string()),
                    Ok(Message::Close(_)) | Err(_) => return None,
                    Ok(_) => {}
                }
            },
        }
    }

    async fn send(&mut self, message: String) {
        match self {
            Peer::Lines { write, .. } => {
                write.write_all(message.as_bytes()).await.unwrap();
                write.write_all(b"\n").await.unwrap();
            }
            Peer::WebSocket(socket) => socket.feed(Message::text(message)).await.unwrap(),
        }
    }

    /// Sends what `send` buffered: a burst the client reads at once.
    async fn flush(&mut self) {
        match self {
            Peer::Lines { write, .. } => write.flush().await.unwrap(),
            Peer::WebSocket(socket) => socket.flush().await.unwrap(),
        }
    }

    /// Answers the client's subscribe with `answer` and sends `before`
    /// items ahead of the answer and `after` behind it, numbered on, then
    /// the end; reads on until the client hangs up.
    async fn play(mut self, answer: &'static str, before: u64, after: u64) {
        let call = self.next().await.expect("the subscribe comes");
        assert!(call.contains(r#""method":"eth_subscribe""#), "{call}");
        assert!(call.contains(r#""id":1"#), "{call}");
        for n in 0..before {
            self.send(item(n)).await;
        }
        self.send(format!(r#"{{"jsonrpc":"2.0","id":1,{answer}}}"#))
            .await;
        for n in before..before + after {
            self.send(item(n)).await;
        }
        self.send(
            r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"a"}}"#.into(),
        )
        .await;
        self.flush().await;
        while self.next().await.is_some() {}
    }
}

/// Item `n` of subscription `a`: a head numbered `n`.
fn item(n: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"eth_subscription","params":{{"subscription":"a","result":{{"number":"{n}","hash":"0x"}}}}}}"#
    )
}

/// Every item the client reads of a subscription the peer plays, with a
/// pause of `pause` every 100 items; the stream's error, if it ends with one.
async fn read_all(
    (connection, peer): (Connection, Peer),
    before: u64,
    after: u64,
    pause: Duration,
) -> (Vec<u64>, Option<ClientError>) {
    let peer = tokio::spawn(peer.play(r#""result":"a""#, before, after));
    let client = TickerClient::new(connection);
    let mut heads = client.subscribe("newHeads".into()).await.unwrap();
    let (mut numbers, mut error) = (Vec::new(), None);
    while let Some(head) = tokio::time::timeout(PATIENCE, heads.next())
        .await
        .expect("the stream goes on to its end")
    {
        match head {
            Ok(Head { number, .. }) => numbers.push(number.parse().unwrap()),
            Err(err) => error = Some(err),
        }
        if numbers.len() % 100 == 0 {
            tokio::time::sleep(pause).await;
        }
    }
    drop((heads, client));
    peer.await.unwrap();
    (numbers, error)
}

const ITEMS: u64 = 1000;

#[tokio::test]
async fn every_item_right_behind_the_answer_arrives_in_order_over_a_line_stream() {
    let (numbers, error) = read_all(Peer::lines(), 0, ITEMS, Duration::ZERO).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(numbers, (0..ITEMS).collect::<Vec<_>>());
}

#[tokio::test]
async fn every_item_right_behind_the_answer_arrives_in_order_over_websocket() {
    let (numbers, error) = read_all(Peer::websocket().await, 0, ITEMS, Duration::ZERO).await;
    assert!(error.is_none(), "{error:?}");
    assert_eq!(numbers, (0..ITEMS).collect::<Vec<_>>());
}

/// A reader slower than the peer: its queue fills, the connection is read
/// no further until it has room, and nothing is lost.
#[tokio::test]
async fn a_slow_reader_still_gets_every_item() {
    let pause = Duration::from_millis(20);
    for connected in [Peer::lines(), Peer::websocket().await] {
        let (numbers, error) = read_all(connected, 0, ITEMS, pause).await;
        assert!(error.is_none(), "{error:?}");
        assert_eq!(numbers, (0..ITEMS).collect::<Vec<_>>());
    }
}

/// Items ahead of the answer, as many as a client keeps: they come first,
/// then those behind it.
#[tokio::test]
async fn items_ahead_of_the_answer_come_first_up_to_the_bound() {
    for connected in [Peer::lines(), Peer::websocket().await] {
        let (numbers, error) = read_all(connected, 64, 200, Duration::ZERO).await;
        assert!(error.is_none(), "{error:?}");
        assert_eq!(numbers, (0..264).collect::<Vec<_>>());
    }
}

/// Past the bound, the stream yields the items it kept, then says items
/// were lost, then ends: never a silent gap.
#[tokio::test]
async fn too_many_items_ahead_of_the_answer_end_the_stream_saying_so() {
    for connected in [Peer::lines(), Peer::websocket().await] {
        let (numbers, error) = read_all(connected, 100, 50, Duration::ZERO).await;
        assert_eq!(numbers, (0..64).collect::<Vec<_>>());
        let Some(ClientError::Transport(error)) = error else {
            panic!("the loss is said: {error:?}");
        };
        assert_eq!(error.kind(), TransportErrorKind::Lost);
        assert!(
            error
                .to_string()
                .contains("more than 64 items came before the subscription's answer"),
            "{error}"
        );
    }
}

/// An error answer fails the call; the items the peer sends for the id
/// anyway reach no stream and the connection serves on.
#[tokio::test]
async fn an_error_answer_fails_the_call_and_opens_no_stream() {
    let (connection, peer) = Peer::lines();
    let answer = r#""error":{"code":-32602,"message":"Unknown subscription"}"#;
    let peer = tokio::spawn(peer.play(answer, 0, 3));
    let client = TickerClient::new(connection);
    let Err(error) = client.subscribe("newHeads".into()).await else {
        panic!("the call fails");
    };
    assert_eq!(error.rpc_error().map(|e| e.code()), Some(-32602));
    drop(client);
    tokio::time::timeout(PATIENCE, peer)
        .await
        .expect("the client hangs up")
        .unwrap();
}
