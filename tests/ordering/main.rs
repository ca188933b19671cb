//! Turns on a two-way connection: exclusive messages run alone and in
//! arrival order, shared ones together between them, an exclusive change
//! supersedes the shared requests for its key (`-32801`), and a handler
//! that awaits its peer's answer never deadlocks the connection, however
//! full it is, while what the connection holds meanwhile stays bounded.
//!
//! The server keeps notes; its handlers record what ran beside what, so a
//! test can tell that nothing exclusive ever overlapped anything else.
//! Shared reads meet at a rendezvous: if they did not run together, they
//! would wait forever, and the test's patience would fail it.

// Only the line-framed peer is used here.
#[allow(dead_code)]
#[path = "../support/raw.rs"]
mod raw;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use raw::Wire;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{CancelPolicy, Context, Router, RpcResult, rpc};

/// How long any one step may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

#[derive(Debug, Serialize, Deserialize)]
pub struct Write {
    pub note: String,
    pub text: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Read {
    pub note: String,
    /// Answer only once this many reads run at once (0: at once); a read
    /// with `u32::MAX` never answers.
    #[serde(default)]
    pub meet: u32,
}

#[rpc(allow_unknown_params)]
pub trait Notes {
    /// Replaces a note's text, alone.
    #[notification(name = "note/write", exclusive)]
    async fn write(&self, #[params] write: Write);

    /// Replaces a note's text, alone, superseding the reads of that note.
    #[notification(name = "note/set", exclusive, key = "/note", supersede)]
    async fn set(&self, #[params] write: Write);

    /// A note's text, beside other reads.
    #[method(name = "note/read", shared, key = "/note")]
    async fn read(&self, #[params] read: Read) -> RpcResult<String>;

    /// Asks the client for a note's text and writes it, alone.
    #[notification(name = "note/fetch", exclusive)]
    async fn fetch(&self, #[context] cx: &Context, note: String);

    /// The same, with no turn declared: an in-order notification.
    #[notification(name = "note/fetchInOrder")]
    async fn fetch_in_order(&self, #[context] cx: &Context, note: String);
}

/// What the client serves the server.
#[rpc]
pub trait Source {
    #[method(name = "source/text")]
    async fn text(&self, note: String) -> RpcResult<String>;
}

#[derive(Clone, Default)]
struct Book {
    notes: Arc<Mutex<HashMap<String, String>>>,
    /// Reads running now, and writes running now.
    reads: Arc<AtomicUsize>,
    writes: Arc<AtomicUsize>,
    /// Times something ran beside an exclusive message.
    overlaps: Arc<AtomicUsize>,
    /// The texts written, in the order they were.
    written: Arc<Mutex<Vec<String>>>,
    /// Reads dropped before they answered.
    dropped: Arc<AtomicUsize>,
    /// The most reads seen running at once, for the rendezvous.
    together: Arc<watch::Sender<usize>>,
}

impl Book {
    fn new() -> Self {
        Book {
            together: Arc::new(watch::Sender::new(0)),
            ..Book::default()
        }
    }

    fn store(&self, write: Write) {
        if self.writes.fetch_add(1, Ordering::SeqCst) != 0 || self.reads.load(Ordering::SeqCst) != 0
        {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        self.written.lock().unwrap().push(write.text.clone());
        self.notes.lock().unwrap().insert(write.note, write.text);
        self.writes.fetch_sub(1, Ordering::SeqCst);
    }

    fn router(&self) -> Router {
        Router::builder()
            .service(self.clone().into_service())
            .cancel_notification(CancelPolicy::lsp())
            .build()
            .unwrap()
    }
}

/// Counts a read as running while it lives; counts it dropped if it goes
/// before it answered.
struct Reading<'a> {
    book: &'a Book,
    answered: bool,
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        self.book.reads.fetch_sub(1, Ordering::SeqCst);
        if !self.answered {
            self.book.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Notes for Book {
    async fn write(&self, write: Write) {
        // Long enough for anything that should wait to have started.
        tokio::time::sleep(Duration::from_millis(5)).await;
        self.store(write);
    }

    async fn set(&self, write: Write) {
        self.store(write);
    }

    async fn read(&self, read: Read) -> RpcResult<String> {
        let running = self.reads.fetch_add(1, Ordering::SeqCst) + 1;
        let mut reading = Reading {
            book: self,
            answered: false,
        };
        if self.writes.load(Ordering::SeqCst) != 0 {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        self.together
            .send_modify(|most| *most = (*most).max(running));
        match read.meet {
            0 => {}
            u32::MAX => std::future::pending().await,
            meet => {
                let mut together = self.together.subscribe();
                let _ = together.wait_for(|most| *most >= meet as usize).await;
            }
        }
        let text = self.notes.lock().unwrap().get(&read.note).cloned();
        reading.answered = true;
        Ok(text.unwrap_or_default())
    }

    async fn fetch(&self, cx: &Context, note: String) {
        self.fetch_in_order(cx, note).await;
    }

    async fn fetch_in_order(&self, cx: &Context, note: String) {
        let source = SourceClient::new(cx.connection().expect("a two-way connection").clone());
        let text = source.text(note.clone()).await.expect("the client answers");
        self.store(Write { note, text });
    }
}

/// A newline-delimited TCP peer that writes JSON by hand.
struct Peer {
    reader: raw::Peer<OwnedReadHalf>,
    writer: OwnedWriteHalf,
}

impl Peer {
    async fn connect(handle: &ServerHandle) -> Self {
        let (stream, _) = raw::connect(handle.local_addr().unwrap(), None).await;
        let (read, writer) = stream.into_split();
        Peer {
            reader: raw::Peer::new(read, Wire::Lines),
            writer,
        }
    }

    async fn send(&mut self, message: Value) {
        let bytes = Wire::Lines.encode(&message.to_string());
        self.writer.write_all(&bytes).await.unwrap();
    }

    async fn read(&mut self, id: u64, note: &str, meet: u32) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "note/read", "params": {"note": note, "meet": meet}}))
            .await;
    }

    async fn notify(&mut self, method: &str, note: &str, text: &str) {
        let params = json!({"note": note, "text": text});
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends `note/fetch` for `note`; returns the server's call for its text,
    /// which its handler now awaits.
    async fn fetch(&mut self, note: &str) -> Value {
        self.send(json!({"jsonrpc": "2.0", "method": "note/fetch", "params": {"note": note}}))
            .await;
        let call = self.reader.json().await;
        assert_eq!(call["method"], "source/text", "{call}");
        call
    }

    /// The next `count` replies, by id.
    async fn replies(&mut self, count: usize) -> HashMap<u64, Value> {
        let mut replies = HashMap::new();
        while replies.len() < count {
            let reply = self.reader.json().await;
            let id = reply["id"]
                .as_u64()
                .expect("a reply to one of our requests");
            replies.insert(id, reply);
        }
        replies
    }
}

async fn serve(book: &Book, limits: Limits) -> ServerHandle {
    Server::new(book.router())
        .limits(limits)
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap()
}

fn result(reply: &Value) -> &str {
    reply["result"]
        .as_str()
        .unwrap_or_else(|| panic!("not a result: {reply}"))
}

#[tokio::test]
async fn exclusive_messages_run_alone_and_shared_ones_together() {
    let book = Book::new();
    let handle = serve(&book, Limits::default()).await;
    let mut peer = Peer::connect(&handle).await;
    peer.notify("note/write", "n", "one").await;
    // Three reads that answer only when all three run at once.
    for id in 1..=3 {
        peer.read(id, "n", 3).await;
    }
    peer.notify("note/write", "n", "two").await;
    peer.notify("note/write", "n", "three").await;
    for id in 4..=6 {
        peer.read(id, "n", 3).await;
    }
    let replies = peer.replies(6).await;
    for id in 1..=3 {
        assert_eq!(
            result(&replies[&id]),
            "one",
            "read {id} ran after the first write only"
        );
    }
    for id in 4..=6 {
        assert_eq!(
            result(&replies[&id]),
            "three",
            "read {id} ran after both writes"
        );
    }
    assert_eq!(*book.written.lock().unwrap(), ["one", "two", "three"]);
    assert_eq!(
        book.overlaps.load(Ordering::SeqCst),
        0,
        "an exclusive message ran beside another"
    );
    drop(peer);
    handle.shutdown().await;
}

#[tokio::test]
async fn an_exclusive_change_supersedes_the_reads_of_its_key_in_flight() {
    let book = Book::new();
    let handle = serve(&book, Limits::default()).await;
    let mut peer = Peer::connect(&handle).await;
    peer.notify("note/set", "a", "first").await;
    // A read that would never answer, then a change to its note.
    peer.read(1, "a", u32::MAX).await;
    peer.notify("note/set", "a", "second").await;
    peer.read(2, "a", 0).await;
    let replies = peer.replies(2).await;
    assert_eq!(
        replies[&1]["error"],
        json!({"code": -32801, "message": "Content modified"}),
        "the read in flight was superseded"
    );
    assert_eq!(
        result(&replies[&2]),
        "second",
        "the read after the change is not"
    );
    assert_eq!(
        book.dropped.load(Ordering::SeqCst),
        1,
        "its handler was dropped"
    );

    // A change supersedes only the reads of its own note, and waits for
    // the others, as any exclusive message does.
    peer.read(3, "b", u32::MAX).await;
    peer.read(4, "a", u32::MAX).await;
    peer.notify("note/set", "b", "third").await;
    let replies = peer.replies(1).await;
    assert_eq!(replies[&3]["error"]["code"], -32801, "{replies:?}");
    peer.notify("note/set", "a", "fourth").await;
    let replies = peer.replies(1).await;
    assert_eq!(replies[&4]["error"]["code"], -32801, "{replies:?}");
    peer.read(5, "b", 0).await;
    assert_eq!(result(&peer.replies(1).await[&5]), "third");
    assert_eq!(
        *book.written.lock().unwrap(),
        ["first", "second", "third", "fourth"]
    );
    assert_eq!(book.dropped.load(Ordering::SeqCst), 3);
    assert_eq!(book.overlaps.load(Ordering::SeqCst), 0);
    drop(peer);
    handle.shutdown().await;
}

/// The client's side: it answers `source/text` with the note's name in capitals.
struct Upper;

impl Source for Upper {
    async fn text(&self, note: String) -> RpcResult<String> {
        Ok(note.to_uppercase())
    }
}

/// A handler that waits for its client's answer while the connection is
/// full: the answer arrives behind requests that wait for the handler.
/// With two places, the reads are held for their turn, none refused, and
/// nothing hangs.
async fn a_handler_awaiting_its_client_never_deadlocks(fetch: &str) {
    let book = Book::new();
    let handle = serve(&book, Limits::default().max_in_flight(2)).await;
    let connection = StreamConnector::new(Framing::Lines)
        .handlers(Router::new(Upper.into_service()))
        .connect_tcp(handle.local_addr().unwrap())
        .await
        .unwrap()
        .with_timeout(PATIENCE);
    let notes = NotesClient::new(connection.clone());
    notes.fetch_in_order("a".to_owned()).await.unwrap();
    if fetch == "note/fetch" {
        notes.fetch("b".to_owned()).await.unwrap();
    } else {
        notes.fetch_in_order("b".to_owned()).await.unwrap();
    }
    // Sent at once, behind the fetch, before the client can answer it.
    let reads = (0..10).map(|_| {
        notes.read(Read {
            note: "b".to_owned(),
            meet: 0,
        })
    });
    let replies = tokio::time::timeout(PATIENCE, futures_util::future::join_all(reads))
        .await
        .expect("no deadlock");
    for reply in replies {
        assert_eq!(reply.unwrap(), "B", "the read ran after the fetch");
    }
    assert_eq!(*book.written.lock().unwrap(), ["A", "B"]);
    assert_eq!(book.overlaps.load(Ordering::SeqCst), 0);
    drop((notes, connection));
    handle.shutdown().await;
}

/// How many reads and writes a peer sends while the server's handler waits
/// for its answer: many times what the connection has places for.
const FLOOD: u64 = 100;

/// A handler that awaits its peer's answer while the peer sends hundreds of
/// requests and notifications first, each to run after the handler: the
/// server reads past them all, holding them in order, finds the answer,
/// and then serves every one, in turn, none refused.
#[tokio::test]
async fn the_answer_a_handler_awaits_is_found_behind_hundreds_of_messages() {
    let book = Book::new();
    let handle = serve(&book, Limits::default().max_in_flight(2)).await;
    let mut peer = Peer::connect(&handle).await;
    let call = peer.fetch("b").await;
    // Each read after a write: once the last is answered, every write has run.
    for id in 1..=FLOOD {
        peer.notify("note/write", "c", &id.to_string()).await;
        peer.read(id, "b", 0).await;
    }
    peer.send(json!({"jsonrpc": "2.0", "id": call["id"], "result": "B"}))
        .await;
    let replies = peer.replies(FLOOD as usize).await;
    for id in 1..=FLOOD {
        assert_eq!(result(&replies[&id]), "B", "read {id} ran after the fetch");
    }
    let written = book.written.lock().unwrap().clone();
    let expected: Vec<String> = std::iter::once("B".to_owned())
        .chain((1..=FLOOD).map(|id| id.to_string()))
        .collect();
    assert_eq!(written, expected, "every write ran, in arrival order");
    assert_eq!(book.overlaps.load(Ordering::SeqCst), 0);
    drop(peer);
    handle.shutdown().await;
}

/// What the server holds for a handler that waits is bounded: a peer that
/// never answers and sends past the budget is told so and disconnected,
/// its messages dropped, and the server serves on.
#[tokio::test]
async fn a_peer_that_floods_a_waiting_handler_past_the_budget_is_disconnected() {
    let book = Book::new();
    let limits = Limits::default().max_in_flight(2).max_backlog_size(4096);
    let handle = serve(&book, limits).await;
    let mut peer = Peer::connect(&handle).await;
    // Never answered.
    peer.fetch("b").await;
    // About 8 KB (14 KB as the backlog counts them), over three times the
    // budget: it fits in the sockets' buffers, so every write succeeds even
    // once the server no longer reads.
    for id in 1..=FLOOD {
        peer.read(id, "b", 0).await;
    }
    let mut got = Vec::new();
    while let Some(message) = peer.reader.next().await {
        let raw::Got::Json(message) = message else {
            panic!("not JSON: {message:?}")
        };
        got.push(message);
    }
    drop(peer);
    let refusal = got
        .iter()
        .find(|message| message.get("error").is_some())
        .unwrap_or_else(|| panic!("no error before the close: {got:?}"));
    assert_eq!(refusal["id"], Value::Null);
    assert_eq!(refusal["error"]["code"], -32000);
    assert_eq!(refusal["error"]["message"], "Backlog over budget");
    assert_eq!(refusal["error"]["data"]["budget"], 4096);
    assert!(
        got.iter().all(|message| message.get("result").is_none()),
        "no read was served: {got:?}"
    );
    assert!(
        book.written.lock().unwrap().is_empty(),
        "the fetch was dropped"
    );

    // The server itself goes on.
    let mut peer = Peer::connect(&handle).await;
    peer.notify("note/write", "n", "fine").await;
    peer.read(1, "n", 0).await;
    assert_eq!(result(&peer.replies(1).await[&1]), "fine");
    drop(peer);
    handle.shutdown().await;
}

#[tokio::test]
async fn an_exclusive_handler_awaiting_its_client_never_deadlocks() {
    a_handler_awaiting_its_client_never_deadlocks("note/fetch").await;
}

#[tokio::test]
async fn an_in_order_notification_awaiting_its_client_never_deadlocks() {
    a_handler_awaiting_its_client_never_deadlocks("note/fetchInOrder").await;
}
