//! The `text-agent` binary: what it prints, that it serves, that SIGTERM
//! stops it cleanly, that its TCK mode takes `--push` and
//! `--extended-card`, and that with `--store sqlite:PATH` a killed and
//! restarted agent keeps its tasks and its de-duplication window.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

/// `text-agent --listen 127.0.0.1:0 <args>`, and the address it printed.
async fn start(args: &[&str]) -> (Child, String) {
    let mut agent = Command::new(env!("CARGO_BIN_EXE_text-agent"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
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
    (agent, addr)
}

#[cfg(unix)]
#[tokio::test]
async fn prints_its_card_url_serves_and_stops_on_sigterm() {
    let (mut agent, addr) = start(&[]).await;
    let card = card(&addr).await;
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        format!("http://{addr}/a2a")
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

#[tokio::test]
async fn the_tck_mode_pushes_and_serves_the_extended_card_when_asked() {
    let (_agent, addr) = start(&["--tck", "--push", "--extended-card"]).await;
    let card = card(&addr).await;
    assert_eq!(card["capabilities"]["pushNotifications"], true, "{card}");
    assert_eq!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    let extended = rpc(&addr, "GetExtendedAgentCard", json!({})).await;
    assert!(
        extended["result"]["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("for authenticated callers.")),
        "{extended}"
    );
    // The TCK's own scenario of a task that waits, and its https webhook.
    let message = json!({"message": {"messageId": "tck-input-required-1", "role": "ROLE_USER",
        "parts": [{"text": "push me"}]}});
    let waiting = rpc(&addr, "SendMessage", message).await;
    let task_id = waiting["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_owned();
    let hook = json!({"taskId": task_id, "url": "https://example.com/tck-push-webhook"});
    let created = rpc(&addr, "CreateTaskPushNotificationConfig", hook).await;
    assert_eq!(
        created["result"]["url"], "https://example.com/tck-push-webhook",
        "{created}"
    );

    let (_plain, plain) = start(&["--tck"]).await;
    let card = self::card(&plain).await;
    assert_eq!(card["capabilities"]["pushNotifications"], false, "{card}");
    assert_eq!(card["capabilities"]["extendedAgentCard"], false, "{card}");
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn with_sqlite_a_restarted_agent_keeps_its_tasks_and_still_knows_a_retried_message() {
    let dir = typed_rpc_test_support::scratch::TempDir::new("a2a-restart").unwrap();
    let store = format!("sqlite:{}", dir.path().join("tasks.db").display());
    let message = json!({"message": {"messageId": "restart-1", "role": "ROLE_USER",
        "parts": [{"text": "upper kept words"}]}});
    let (mut agent, addr) = start(&["--store", &store]).await;
    let sent = rpc(&addr, "SendMessage", message.clone()).await;
    let task = &sent["result"]["task"];
    let task_id = task["id"].as_str().expect("a task").to_owned();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    agent.kill().await.unwrap();

    let (_agent, addr) = start(&["--store", &store]).await;
    let got = rpc(&addr, "GetTask", json!({"id": task_id})).await;
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{got}"
    );
    let text = &got["result"]["artifacts"][0]["parts"][0]["text"];
    assert_eq!(text, "KEPT WORDS", "{got}");
    let listed = rpc(&addr, "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["totalSize"], 1, "{listed}");
    assert_eq!(
        listed["result"]["tasks"][0]["id"],
        task_id.as_str(),
        "{listed}"
    );
    // The same messageId again: the task it made, not a second run.
    let retried = rpc(&addr, "SendMessage", message).await;
    assert_eq!(
        retried["result"]["task"]["id"],
        task_id.as_str(),
        "{retried}"
    );
    let listed = rpc(&addr, "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["totalSize"], 1, "{listed}");
}

/// The agent's card.
async fn card(addr: &str) -> Value {
    let request = format!(
        "GET /.well-known/agent-card.json HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"
    );
    exchange(addr, &request).await
}

/// The reply to the A2A 1.0 call of `method` with `params`.
async fn rpc(addr: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let request = format!(
        "POST /a2a HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(addr, &request).await
}

/// The JSON body of the answer to a raw HTTP/1.1 `request`.
async fn exchange(addr: &str, request: &str) -> Value {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    let (_, body) = reply.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|err| panic!("{err}: {reply}"))
}
