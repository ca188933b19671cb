//! Clients nobody here wrote: curl (`--cacert`, `--http2`,
//! `--http2-prior-knowledge`) and Python's httpx (`verify=`), each saying
//! which HTTP version it spoke.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use typed_rpc::transport::Limits;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::{debian, paths, process};

use crate::certs::Authority;
use crate::ours::serve_counter;
use crate::support::calculator;
use crate::{https_url, serve_https};

const CALL: &str = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;

/// What curl printed, and the HTTP version it reports (`%{http_version}`:
/// `1.1`, `2`) on the last line.
struct Curled {
    body: String,
    http_version: String,
}

/// Debian's curl, installed when it is missing (as root).
fn curl_command() -> Command {
    Command::new(debian::binary("curl", "/usr/bin/curl").unwrap())
}

/// Runs curl with `args`, a JSON body of `body`, and the HTTP version
/// written after the body (off the runtime's threads: the server runs
/// there).
async fn curl(args: &[&str], body: &str) -> Curled {
    let mut command = curl_command();
    command
        .args(["--silent", "--show-error", "--max-time", "10"])
        .args([
            "-H",
            "content-type: application/json",
            "--data-binary",
            body,
        ])
        .args(["--write-out", "\n%{http_version}"])
        .args(args);
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("curl runs");
    assert!(
        output.status.success(),
        "curl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let (body, version) = text.rsplit_once('\n').unwrap();
    Curled {
        body: body.to_owned(),
        http_version: version.to_owned(),
    }
}

/// curl must speak HTTP/2 for these tests to mean anything.
fn curl_has_http2() {
    let output = curl_command().arg("-V").output().expect("curl runs");
    let features = String::from_utf8_lossy(&output.stdout);
    assert!(
        features
            .lines()
            .any(|line| line.starts_with("Features:") && line.contains("HTTP2")),
        "this curl lacks HTTP/2:\n{features}"
    );
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_with_cacert_calls_over_https_with_http2() {
    curl_has_http2();
    let authority = Authority::new("test CA");
    let handle = serve_https(Limits::default(), authority.server_tls()).await;
    let ca = authority.pem_file();
    let url = https_url(&handle);
    let curled = curl(&["--cacert", path_str(&ca), "--http2", &url], CALL).await;
    assert_eq!(curled.http_version, "2");
    let reply: Value = serde_json::from_str(&curled.body).unwrap();
    assert_eq!(reply, json!({"jsonrpc": "2.0", "result": 19, "id": 1}));

    // And HTTP/1.1 when curl asks for it by ALPN.
    let curled = curl(&["--cacert", path_str(&ca), "--http1.1", &url], CALL).await;
    assert_eq!(curled.http_version, "1.1");
    assert_eq!(
        serde_json::from_str::<Value>(&curled.body).unwrap()["result"],
        19
    );
    assert!(handle.shutdown().await);
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_refuses_our_certificate_without_our_ca() {
    let authority = Authority::new("test CA");
    let handle = serve_https(Limits::default(), authority.server_tls()).await;
    let url = https_url(&handle);
    let output = tokio::task::spawn_blocking(move || {
        curl_command()
            .args([
                "--silent",
                "--max-time",
                "10",
                "--data-binary",
                CALL,
                url.as_str(),
            ])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    // 60: the peer's certificate cannot be authenticated with known CAs.
    assert_eq!(output.status.code(), Some(60));
    assert!(handle.shutdown().await);
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_with_prior_knowledge_speaks_h2c_to_serve_http() {
    curl_has_http2();
    let (handle, addr) = calculator::serve(Limits::default()).await;
    let url = format!("http://{addr}/");
    let curled = curl(&["--http2-prior-knowledge", &url], CALL).await;
    assert_eq!(curled.http_version, "2");
    assert_eq!(
        serde_json::from_str::<Value>(&curled.body).unwrap()["result"],
        19
    );
    // The same port still speaks HTTP/1.1 to everyone else.
    let curled = curl(&["--http1.1", &url], CALL).await;
    assert_eq!(curled.http_version, "1.1");
    assert!(handle.shutdown().await);
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_reads_server_sent_events_over_http2() {
    curl_has_http2();
    let authority = Authority::new("test CA");
    let handle = serve_counter(&authority).await;
    let ca = authority.pem_file();
    let url = https_url(&handle);
    let call = r#"{"jsonrpc":"2.0","method":"count","params":[3,5],"id":"s"}"#;
    let accept = "accept: application/json, text/event-stream";
    let args = ["--cacert", path_str(&ca), "--http2", "-H", accept, &url];
    let curled = curl(&args, call).await;
    assert_eq!(curled.http_version, "2");
    let events: Vec<Value> = curled
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect();
    let expected: Vec<Value> = (0..3)
        .map(|n| json!({"jsonrpc": "2.0", "result": n, "id": "s"}))
        .collect();
    assert_eq!(events, expected);
    assert!(handle.shutdown().await);
}

/// What `httpx_client.py` reports for `url`, trusting the CA in `ca`; its
/// pinned packages installed in `<target dir>/tls-python`.
async fn httpx(url: String, ca: PathBuf, version: &'static str) -> Value {
    let output = tokio::task::spawn_blocking(move || {
        let dir = paths::workspace_root().join("tests/tls");
        let packages = PythonPackages::install(dir.join("requirements.txt"), "tls-python").unwrap();
        let mut python = packages.python(dir.join("httpx_client.py"));
        python.args([url.as_str(), path_str(&ca), version]);
        process::run(python, Duration::from_secs(60)).unwrap()
    })
    .await
    .unwrap();
    assert!(
        output.success(),
        "httpx_client.py failed: {}",
        output.stderr
    );
    serde_json::from_str(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn httpx_with_verify_calls_over_https_with_http2_and_http1() {
    let authority = Authority::new("test CA");
    let handle = serve_https(Limits::default(), authority.server_tls()).await;
    let ca = authority.pem_file();
    let expected_reply = json!({"jsonrpc": "2.0", "result": 19, "id": 1});
    let report = httpx(https_url(&handle), ca.clone(), "http2").await;
    assert_eq!(report["http_version"], "HTTP/2", "{report}");
    assert_eq!(report["status"], 200);
    assert_eq!(report["reply"], expected_reply);
    let report = httpx(https_url(&handle), ca, "http1").await;
    assert_eq!(report["http_version"], "HTTP/1.1", "{report}");
    assert_eq!(report["reply"], expected_reply);
    assert!(handle.shutdown().await);
}

#[tokio::test(flavor = "multi_thread")]
async fn httpx_refuses_a_certificate_its_verify_does_not_trust() {
    let theirs = Authority::new("theirs");
    let handle = serve_https(Limits::default(), theirs.server_tls()).await;
    let ours = Authority::new("ours").pem_file();
    let report = httpx(https_url(&handle), ours, "http2").await;
    assert_eq!(report["error"], "ConnectError", "{report}");
    assert!(
        report["detail"]
            .as_str()
            .unwrap()
            .contains("CERTIFICATE_VERIFY_FAILED"),
        "{report}"
    );
    assert!(handle.shutdown().await);
}
