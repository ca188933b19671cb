//! `typed-rpc call` on a streaming method: each item printed as it arrives
//! over Server-Sent Events and over WebSocket, TCP and stdio
//! subscriptions, until the stream ends or Ctrl-C unsubscribes, with an
//! exit code that says how it ended.

mod support;

#[path = "../examples/common/ticker_api.rs"]
mod ticker_api;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::stream::{self, Stream, StreamExt};
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::{Router, RpcResult, rpc};

use support::{Run, Served, scratch_file, typed_rpc};
use ticker_api::{Ticker, Ticks};

/// Ethereum-style names for a subscription's notifications and its end.
#[rpc]
pub trait Heads {
    /// `count` heads, one every 20 ms.
    #[method(
        name = "eth_subscribe",
        stream(notification = "eth_subscription", unsubscribe = "eth_unsubscribe")
    )]
    async fn subscribe(
        &self,
        kind: String,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static>;
}

/// Counts its producers alive.
#[derive(Clone, Default)]
struct Chain {
    alive: Arc<AtomicUsize>,
}

/// Counts a producer out when it is dropped.
struct Alive(Arc<AtomicUsize>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Heads for Chain {
    async fn subscribe(
        &self,
        _kind: String,
        count: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static> {
        self.alive.fetch_add(1, Ordering::SeqCst);
        let alive = Alive(self.alive.clone());
        Ok(stream::iter(0..count).then(move |n| {
            let _alive = &alive;
            async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(format!("0x{n:x}"))
            }
        }))
    }
}

/// Counts the unsubscribe calls that reach the server.
#[derive(Clone, Default)]
struct Unsubscribes(Arc<AtomicUsize>);

impl CallLayer for Unsubscribes {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        if request.method().ends_with("_unsubscribe") {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        next.run(request).await
    }
}

/// The ticker and the heads, served in this test over HTTP (and WebSocket)
/// and TCP.
struct Streams {
    served: Served,
    unsubscribes: Unsubscribes,
    chain: Chain,
}

impl Streams {
    fn start() -> Streams {
        let unsubscribes = Unsubscribes::default();
        let chain = Chain::default();
        let router = Router::builder()
            .service(Ticks.into_service())
            .service(chain.clone().into_service())
            .layer(unsubscribes.clone())
            .build()
            .expect("distinct methods");
        Streams {
            served: Served::start(router),
            unsubscribes,
            chain,
        }
    }

    /// Its URLs over HTTP, WebSocket and TCP.
    fn network_urls(&self) -> [String; 3] {
        [self.served.http(), self.served.ws(), self.served.tcp()]
    }

    /// Waits until the server has seen `count` unsubscribe calls.
    fn unsubscribed(&self, count: usize) -> bool {
        settles(|| self.unsubscribes.0.load(Ordering::SeqCst) == count)
    }

    /// Waits until no producer of `eth_subscribe` is left.
    fn producers_dropped(&self) -> bool {
        settles(|| self.chain.alive.load(Ordering::SeqCst) == 0)
    }
}

/// Waits until `done` holds, for a few seconds at most.
fn settles(done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// The ticker example's binary, spoken to on its stdio.
fn stdio_url() -> String {
    format!(
        "stdio:{} --stdio",
        support::example_binary("ticker").display()
    )
}

/// The arguments of `typed-rpc` subscribing to `count` new heads at `url`,
/// with the notification and unsubscribe names given on the command line.
fn heads_call<'a>(url: &'a str, count: &'a str) -> [&'a str; 10] {
    [
        "call",
        "--compact",
        "--notification",
        "eth_subscription",
        "--unsubscribe",
        "eth_unsubscribe",
        url,
        "eth_subscribe",
        "newHeads",
        count,
    ]
}

const THREE: &str = "{\"n\":0,\"square\":0}\n{\"n\":1,\"square\":1}\n{\"n\":2,\"square\":4}\n";

#[test]
fn each_item_is_printed_over_every_transport_and_the_end_exits_0() {
    let server = Streams::start();
    for url in server.network_urls().into_iter().chain([stdio_url()]) {
        let run = typed_rpc(&["call", "--stream", "--compact", &url, "count", "3"]);
        assert_eq!(run.ok(), THREE, "{url}");
    }
    // Pretty-printed by default, one value after another.
    let run = typed_rpc(&["call", "--stream", &server.served.ws(), "count", "2"]);
    assert_eq!(
        run.ok(),
        "{\n  \"n\": 0,\n  \"square\": 0\n}\n{\n  \"n\": 1,\n  \"square\": 1\n}\n"
    );
}

#[test]
fn an_error_item_ends_the_stream_with_exit_code_5() {
    let server = Streams::start();
    for url in server.network_urls() {
        let run = typed_rpc(&["call", "--stream", "--compact", &url, "failing", "2"]);
        assert_eq!(run.code(), 5, "{url}: {run:#?}");
        assert_eq!(
            run.stdout,
            "{\"n\":0,\"square\":0}\n{\"n\":1,\"square\":1}\n"
        );
        assert!(run.stderr.contains("-32050"), "{url}: {}", run.stderr);
    }
    // A call the server refuses before its stream: the same layer.
    let run = typed_rpc(&[
        "call",
        "--stream",
        &server.served.ws(),
        "count",
        "\"three\"",
    ]);
    assert_eq!(run.code(), 5, "{run:#?}");
    assert!(run.stderr.contains("-32602"), "{}", run.stderr);
}

#[test]
fn the_document_says_a_method_streams_and_flags_name_its_notifications() {
    let server = Streams::start();
    let document = scratch_file(
        "ticker.openrpc.json",
        r#"{"openrpc": "1.3.2", "info": {"title": "Ticker", "version": "1"}, "methods": [
            {"name": "count", "params": [{"name": "to", "required": true, "schema": {}},
                                         {"name": "every_ms", "schema": {}}],
             "result": {"name": "result", "schema": {}},
             "x-stream": {"wire": ["sse", "subscription"], "notification": "count",
                          "unsubscribe": "count_unsubscribe", "item": {}}}]}"#,
    );
    let document = document.to_str().unwrap();
    for url in [server.served.http(), server.served.tcp()] {
        let run = typed_rpc(&[
            "call",
            "--openrpc",
            document,
            "--compact",
            &url,
            "count",
            "3",
        ]);
        assert_eq!(run.ok(), THREE, "{url}: no --stream needed");
    }
    let run = typed_rpc(&heads_call(&server.served.ws(), "2"));
    assert_eq!(run.ok(), "\"0x0\"\n\"0x1\"\n");
}

/// `typed-rpc ARGS` started, once it has printed its first line: the
/// child, the rest of its stdout, and that line.
fn started(args: &[&str]) -> (Child, BufReader<ChildStdout>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_typed-rpc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("typed-rpc starts");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("a first item");
    (child, stdout, first)
}

/// `typed-rpc ARGS`, stopped with SIGINT once it has printed its first
/// line: the run, and that first line.
fn interrupted(args: &[&str]) -> (Run, String) {
    let (mut child, mut stdout, first) = started(args);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("stdout to its end");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("typed-rpc exits");
    let run = Run {
        status,
        stdout: first.clone() + &rest,
        stderr,
    };
    (run, first)
}

#[test]
fn ctrl_c_unsubscribes_and_exits_130() {
    let server = Streams::start();
    let heads = |url: &str| interrupted(&heads_call(url, "100000"));
    // Over TCP the server reads the unsubscribe, then the connection's end.
    let (run, first) = heads(&server.served.tcp());
    assert_eq!(first, "\"0x0\"\n");
    assert_eq!(run.code(), 130, "{run:#?}");
    assert!(server.unsubscribed(1), "the server was told");
    assert!(server.producers_dropped());
    // Over WebSocket the unsubscribe goes out before the close frame, which
    // the server may act on first: either way the producer is dropped.
    let (run, _) = heads(&server.served.ws());
    assert_eq!(run.code(), 130, "{run:#?}");
    assert!(server.producers_dropped());
    // Over HTTP the response is closed; a child on stdio gets the end of its stdin.
    for url in [server.served.http(), stdio_url()] {
        let (run, _) = interrupted(&["call", "--stream", &url, "count", "100000", "20"]);
        assert_eq!(run.code(), 130, "{url}: {run:#?}");
        assert_eq!(
            run.stderr,
            "typed-rpc: interrupted: the stream was stopped\n"
        );
    }
}

#[test]
fn a_lost_connection_mid_stream_exits_3() {
    let server = Streams::start();
    let url = server.served.ws();
    let (mut child, _, _) = started(&[
        "call",
        "--stream",
        "--compact",
        &url,
        "count",
        "100000",
        "20",
    ]);
    server.served.stop_http();
    let status = child.wait().expect("typed-rpc exits");
    assert_eq!(status.code(), Some(3));
}
