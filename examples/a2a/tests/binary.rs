//! The `text-agent` binary: what it prints, that it serves, and that
//! SIGTERM stops it cleanly.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

#[cfg(unix)]
#[tokio::test]
async fn prints_its_card_url_serves_and_stops_on_sigterm() {
    let mut agent = Command::new(env!("CARGO_BIN_EXE_text-agent"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(agent.stdout.take().unwrap()).lines();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("the agent prints")
            .unwrap()
            .unwrap()
    };
    let listening = next().await;
    let addr = listening
        .strip_prefix("listening on http://")
        .expect(&listening)
        .to_owned();
    assert_eq!(
        next().await,
        format!("agent card: http://{addr}/.well-known/agent-card.json")
    );

    let card = fetch(&addr).await;
    assert_eq!(
        card.jsonrpc_url(),
        Some(format!("http://{addr}/a2a").as_str())
    );

    let pid = agent.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(Duration::from_secs(10), agent.wait())
        .await
        .expect("the agent stops")
        .unwrap();
    assert!(status.success(), "{status:?}");
}

async fn fetch(addr: &str) -> typed_rpc_a2a::types::AgentCard {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /.well-known/agent-card.json HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    let (_, body) = reply.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}
