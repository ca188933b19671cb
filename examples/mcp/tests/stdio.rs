//! `mcp-server` over stdio as a host runs it: stdout carries nothing but
//! protocol messages, and the process exits within a second or two of
//! stdin's end, even with a call still running.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{Scratch, server_binary};

#[test]
fn the_server_exits_soon_after_stdin_ends_and_writes_only_messages() {
    let root = Scratch::new("stdio-exit");
    let mut child = Command::new(server_binary())
        .args(["--fixtures", "--root", root.path().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    // A call that would take a minute, then the end of stdin.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"slow","arguments":{{"seconds":60}}}}}}"#).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    let closed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            closed.elapsed() < Duration::from_secs(3),
            "still running 3 s after stdin's end"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    let lines = reader.join().unwrap();
    assert!(!lines.is_empty());
    for line in &lines {
        let message: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not a message: {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    assert!(lines[0].contains(r#""protocolVersion":"2025-11-25""#));
}
