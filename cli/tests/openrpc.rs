//! Calls checked against an OpenRPC document before anything is sent, and
//! the methods listed from one.

mod support;

use support::{Recorder, calculator_document, typed_rpc};

const USAGE: i32 = 2;

#[test]
fn a_document_file_refuses_a_wrong_call_before_connecting() {
    let recorder = Recorder::start();
    let document = calculator_document();
    let document = document.to_str().unwrap();
    let refusals = [
        (
            &["subtrac", "42", "23"][..],
            "no method `subtrac`; did you mean `subtract`?",
        ),
        (
            &["subtract", "42"],
            "missing its required param `subtrahend` (position 1)",
        ),
        (
            &["subtract", "1", "2", "3"],
            "takes at most 2 params (minuend, subtrahend), 3 given",
        ),
        (
            &["subtract", "minuend=1", "subtrahend=2", "divisor=3"],
            "no param `divisor`",
        ),
        (&["update", "1"], "is a notification"),
    ];
    for (call, reason) in refusals {
        let mut args = vec!["call", "--openrpc", document, &recorder.url];
        args.extend_from_slice(call);
        let run = typed_rpc(&args);
        assert_eq!(run.code(), USAGE, "{call:?}: {run:?}");
        assert!(run.stderr.contains(reason), "{call:?}: {}", run.stderr);
    }
    assert_eq!(recorder.connections(), 0, "the server saw nothing");

    let mut args = vec![
        "call",
        "--openrpc",
        document,
        &recorder.url,
        "subtract",
        "42",
        "23",
    ];
    assert_eq!(typed_rpc(&args).ok(), "19\n", "a call that fits is sent");
    args.truncate(4);
    args.extend(["--notify", "update", "1"]);
    typed_rpc(&args).ok();
    assert_eq!(recorder.methods(), ["subtract", "update"]);
}

#[test]
fn discover_refuses_a_wrong_call_after_asking_the_server_only_for_its_document() {
    let recorder = Recorder::start();
    let run = typed_rpc(&["call", "--discover", &recorder.url, "subtract", "minuend=1"]);
    run.fails_with(USAGE, "missing its required param `subtrahend`");
    assert_eq!(
        recorder.methods(),
        ["rpc.discover"],
        "the call itself was not sent"
    );

    let run = typed_rpc(&["call", "--discover", &recorder.url, "sum", "1", "2", "4"]);
    assert_eq!(run.ok(), "7\n");
    assert_eq!(recorder.methods(), ["rpc.discover", "rpc.discover", "sum"]);
}

#[test]
fn a_batch_is_checked_whole_before_it_is_sent() {
    let recorder = Recorder::start();
    let file = support::scratch_file(
        "checked.jsonl",
        "{\"method\": \"subtract\", \"params\": [42, 23]}\n{\"method\": \"ad\", \"params\": [1, 2]}\n",
    );
    let document = calculator_document();
    let run = typed_rpc(&[
        "batch",
        "--openrpc",
        document.to_str().unwrap(),
        &recorder.url,
        file.to_str().unwrap(),
    ]);
    run.fails_with(USAGE, "call 1: the OpenRPC document has no method `ad`");
    assert_eq!(recorder.connections(), 0);
}

#[test]
fn methods_lists_the_document_from_a_file_or_from_the_server() {
    let recorder = Recorder::start();
    let document = calculator_document();
    let from_file = typed_rpc(&["methods", "--openrpc", document.to_str().unwrap()]);
    let listing = from_file.ok();
    assert!(
        listing.starts_with(
            "subtract(minuend, subtrahend)\n    Subtracts `subtrahend` from `minuend`; fails with `-32000` on overflow.\n"
        ),
        "{listing}"
    );
    assert!(listing.contains("\nsum(values...)\n"), "{listing}");
    assert!(
        listing.contains("\nupdate(values...)  notification\n"),
        "{listing}"
    );
    assert!(listing.contains("\ntotal()\n"), "{listing}");

    let from_server = typed_rpc(&["methods", &recorder.url]);
    assert_eq!(
        from_server.ok(),
        listing,
        "the server's document is the file's"
    );
}

#[test]
fn a_server_without_rpc_discover_says_so() {
    // jsonrpc servers in general answer -32601: that error, with its code.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("tcp://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        use std::io::{BufRead, BufReader, Write};
        let (stream, _) = listener.accept().expect("a connection");
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).expect("a request");
        let reply =
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}"#;
        (&stream)
            .write_all(format!("{reply}\n").as_bytes())
            .unwrap();
        line
    });
    let run = typed_rpc(&["methods", &url]);
    assert_eq!(run.code(), 5, "{run:?}");
    assert!(
        run.stderr.starts_with("typed-rpc: rpc.discover:\n{"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("-32601"), "{}", run.stderr);
    assert!(server.join().unwrap().contains("rpc.discover"));
}
