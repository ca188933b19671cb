//! `typed-rpc call` and `typed-rpc batch` against our calculator over each
//! transport, with what a user checks: the output and the exit code.

mod support;

use support::{Served, calculator_binary, scratch_file, typed_rpc};

/// The exit codes `--help` documents.
const USAGE: i32 = 2;
const TRANSPORT: i32 = 3;
const HTTP: i32 = 4;
const RPC: i32 = 5;
const DECODE: i32 = 6;

#[test]
fn calls_over_http_with_positional_named_and_json_params() {
    let calculator = Served::calculator();
    let url = calculator.http();
    assert_eq!(
        typed_rpc(&["call", &url, "subtract", "42", "23"]).ok(),
        "19\n"
    );
    assert_eq!(
        typed_rpc(&["call", &url, "subtract", "subtrahend=23", "minuend=42"]).ok(),
        "19\n"
    );
    assert_eq!(
        typed_rpc(&[
            "call",
            &url,
            "subtract",
            r#"{"minuend": 42, "subtrahend": 23}"#
        ])
        .ok(),
        "19\n"
    );
    assert_eq!(
        typed_rpc(&["call", &url, "subtract", "-5", "1.5"]).ok(),
        "-6.5\n"
    );
    assert_eq!(typed_rpc(&["call", &url, "sum", "1", "2", "4"]).ok(), "7\n");
    assert_eq!(typed_rpc(&["call", &url, "sum", "[1, 2, 4]"]).ok(), "7\n");
}

#[test]
fn results_are_pretty_unless_compact() {
    let calculator = Served::calculator();
    let url = calculator.http();
    assert_eq!(
        typed_rpc(&["call", &url, "get_data"]).ok(),
        "[\n  \"hello\",\n  5\n]\n"
    );
    assert_eq!(
        typed_rpc(&["call", "--compact", &url, "get_data"]).ok(),
        "[\"hello\",5]\n"
    );
}

#[test]
fn calls_and_notifications_over_websocket() {
    let calculator = Served::calculator();
    let url = calculator.ws();
    assert_eq!(
        typed_rpc(&["call", &url, "subtract", "minuend=42", "subtrahend=23"]).ok(),
        "19\n"
    );
    let notified = typed_rpc(&["call", "--notify", &url, "update", "1", "2", "3"]);
    assert_eq!(notified.ok(), "", "a notification prints nothing");
    assert_eq!(typed_rpc(&["call", &url, "total"]).ok(), "6\n");
}

#[test]
fn calls_and_notifications_over_tcp() {
    let calculator = Served::calculator();
    let url = calculator.tcp();
    assert_eq!(typed_rpc(&["call", &url, "add", "a=1", "b=2"]).ok(), "3\n");
    // The process ends right after sending: the notification still gets out.
    typed_rpc(&["call", "--notify", &url, "notify_sum", "[4, 5]"]).ok();
    assert_eq!(typed_rpc(&["call", &url, "total"]).ok(), "9\n");
}

#[test]
fn calls_a_spawned_stdio_server_with_either_framing() {
    let calculator = calculator_binary().display().to_string();
    let lines = format!("stdio:'{calculator}' --stdio");
    assert_eq!(
        typed_rpc(&["call", &lines, "subtract", "42", "23"]).ok(),
        "19\n"
    );
    let content_length = format!("stdio:'{calculator}' --stdio --framing content-length");
    assert_eq!(
        typed_rpc(&[
            "call",
            "--framing",
            "content-length",
            &content_length,
            "sum",
            "1",
            "2",
            "4"
        ])
        .ok(),
        "7\n"
    );
    let notified = typed_rpc(&["call", "--notify", &lines, "notify_hello", "7"]);
    assert_eq!(notified.ok(), "");
    assert!(
        notified.stderr.contains("hello, 7"),
        "the server's stderr is ours, and it got the notification before its stdin closed: {notified:?}"
    );
}

#[test]
fn a_json_rpc_error_is_printed_on_stderr_with_its_exit_code() {
    let calculator = Served::calculator();
    for url in [calculator.http(), calculator.ws(), calculator.tcp()] {
        let run = typed_rpc(&["call", &url, "subtract", "42"]);
        assert_eq!(run.code(), RPC, "{run:?}");
        assert_eq!(run.stdout, "");
        let error: serde_json::Value = serde_json::from_str(&run.stderr).expect("the error object");
        assert_eq!(error["code"], -32602);
        assert_eq!(error["data"]["param"], "subtrahend");
        assert_eq!(error["data"]["reason"], "missing required param");

        let run = typed_rpc(&["call", "--compact", &url, "multiply", "6", "7"]);
        assert_eq!(run.code(), RPC);
        assert_eq!(
            run.stderr,
            "{\"code\":-32601,\"message\":\"Method not found\"}\n"
        );
    }
}

#[test]
fn an_unreachable_server_is_a_transport_error() {
    // A port that was free a moment ago, and is closed now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("ws://127.0.0.1:{port}/"),
        format!("tcp://127.0.0.1:{port}"),
        "stdio:/nonexistent/server".to_owned(),
    ] {
        let run = typed_rpc(&["call", &url, "total"]);
        assert_eq!(run.code(), TRANSPORT, "{run:?}");
        assert!(run.stderr.contains("could not connect"), "{}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn a_silent_server_times_out_as_a_transport_error() {
    // Accepts and reads, never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("tcp://{}", listener.local_addr().unwrap());
    let run = typed_rpc(&["call", "--timeout", "0.5", &url, "total"]);
    assert_eq!(run.code(), TRANSPORT, "{run:?}");
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
    drop(listener);
}

#[test]
fn http_statuses_and_replies_that_are_not_json_rpc_have_their_own_codes() {
    use std::io::{Read, Write};
    // Answers each connection with the next canned HTTP response.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let answers = [
        "HTTP/1.1 401 Unauthorized\r\ncontent-length: 12\r\nconnection: close\r\n\r\nno token, no",
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\nconnection: close\r\n\r\n{\"a\": 1}\n",
    ];
    let server = std::thread::spawn(move || {
        for answer in answers {
            let (mut stream, _) = listener.accept().expect("a connection");
            let mut request = [0; 4096];
            let _ = stream.read(&mut request);
            stream
                .write_all(answer.as_bytes())
                .expect("the answer is written");
        }
    });
    let run = typed_rpc(&["call", "-H", "authorization: Bearer wrong", &url, "total"]);
    assert_eq!(run.code(), HTTP, "{run:?}");
    assert!(run.stderr.contains("status 401"), "{}", run.stderr);
    let run = typed_rpc(&["call", &url, "total"]);
    assert_eq!(run.code(), DECODE, "{run:?}");
    assert!(
        run.stderr.contains("not a JSON-RPC 2.0 response"),
        "{}",
        run.stderr
    );
    server.join().unwrap();
}

#[test]
fn headers_reach_the_server() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("a connection");
        let mut request = vec![0; 4096];
        let read = stream.read(&mut request).expect("the request");
        let body = r#"{"jsonrpc":"2.0","result":true,"id":1}"#;
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream
            .write_all(answer.as_bytes())
            .expect("the answer is written");
        String::from_utf8_lossy(&request[..read]).to_lowercase()
    });
    let run = typed_rpc(&[
        "call",
        "--header",
        "Authorization: Bearer s3cret",
        "-H",
        "x-tag:a",
        &url,
        "total",
    ]);
    assert_eq!(run.ok(), "true\n");
    let request = server.join().unwrap();
    assert!(
        request.contains("authorization: bearer s3cret\r\n"),
        "{request}"
    );
    assert!(request.contains("x-tag: a\r\n"), "{request}");
}

#[test]
fn usage_mistakes_exit_with_the_usage_code_before_connecting() {
    for args in [
        &["call", "ftp://x/", "total"][..],
        &["call", "tcp://127.0.0.1:1", "subtract", "1", "b=2"],
        &["call", "-H", "x:y", "tcp://127.0.0.1:1", "total"],
        &["call", "http://127.0.0.1:1/"],
        &["call", "--timeout", "soon", "http://127.0.0.1:1/", "total"],
        &["frobnicate"],
    ] {
        let run = typed_rpc(args);
        assert_eq!(run.code(), USAGE, "{args:?}: {run:?}");
        assert!(!run.stderr.is_empty());
    }
}

#[test]
fn help_documents_the_exit_codes() {
    let help = typed_rpc(&["--help"]);
    let help = help.ok();
    for line in [
        "2  usage",
        "3  transport",
        "4  HTTP",
        "5  JSON-RPC",
        "6  decode",
    ] {
        assert!(help.contains(line), "{help}");
    }
}

#[test]
fn a_batch_from_a_file_of_lines_or_an_array() {
    let calculator = Served::calculator();
    let lines = scratch_file(
        "calls.jsonl",
        "{\"method\": \"subtract\", \"params\": [42, 23]}\n\
         {\"method\": \"update\", \"params\": [10], \"notify\": true}\n\
         {\"method\": \"get_data\"}\n",
    );
    let array = scratch_file(
        "calls.json",
        r#"[{"method": "add", "params": {"a": 1, "b": 2}}, {"method": "sum", "params": [1, 2]}]"#,
    );
    for url in [calculator.http(), calculator.ws(), calculator.tcp()] {
        let run = typed_rpc(&["batch", "--compact", &url, lines.to_str().unwrap()]);
        assert_eq!(
            run.ok(),
            "[{\"method\":\"subtract\",\"result\":19},{\"method\":\"get_data\",\"result\":[\"hello\",5]}]\n"
        );
        let run = typed_rpc(&["batch", &url, array.to_str().unwrap()]);
        let replies: serde_json::Value = serde_json::from_str(run.ok()).expect("JSON");
        assert_eq!(
            replies,
            serde_json::json!([
                { "method": "add", "result": 3 },
                { "method": "sum", "result": 3 },
            ])
        );
    }
    // Three batches each notified `update` with 10.
    assert_eq!(
        typed_rpc(&["call", &calculator.http(), "total"]).ok(),
        "30\n"
    );
}

#[test]
fn a_batch_with_failed_calls_prints_every_entry_and_exits_with_the_rpc_code() {
    let calculator = Served::calculator();
    let file = scratch_file(
        "failing.jsonl",
        "{\"method\": \"subtract\", \"params\": [42, 23]}\n{\"method\": \"nope\"}\n",
    );
    let run = typed_rpc(&[
        "batch",
        "--compact",
        &calculator.http(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.code(), RPC, "{run:?}");
    assert_eq!(
        run.stdout,
        "[{\"method\":\"subtract\",\"result\":19},{\"method\":\"nope\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}]\n"
    );
    assert!(run.stderr.contains("call 1 (`nope`)"), "{}", run.stderr);
    assert!(run.stderr.contains("1 of 2 calls failed"), "{}", run.stderr);
}

#[test]
fn a_malformed_batch_file_is_a_usage_error() {
    let file = scratch_file("typo.jsonl", "{\"method\": \"sum\", \"parms\": [1]}\n");
    let run = typed_rpc(&["batch", "http://127.0.0.1:1/", file.to_str().unwrap()]);
    run.fails_with(USAGE, "line 1: unknown field `parms`");
    let run = typed_rpc(&["batch", "http://127.0.0.1:1/", "/nonexistent/calls.json"]);
    run.fails_with(USAGE, "cannot read");
}
