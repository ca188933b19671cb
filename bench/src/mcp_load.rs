//! The MCP load (`mcp_bench`): a client calling one tool, `add(1, 2)`, as
//! fast as it is answered, against any MCP server that has it (ours, rmcp's,
//! the Python SDK's), over either transport:
//!
//! - stdio: one child process, its session initialized, `window` calls
//!   in flight at all times (1: the round-trip latency);
//! - Streamable HTTP: `conns` keep-alive connections, each with its own
//!   classic session (`initialize`, `notifications/initialized`), then
//!   one call at a time, answered with JSON or an event stream.
//!
//! Every answer is checked to hold the sum.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::a2a_load::Tally;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"1.0.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#)
}

/// Whether `message` is the answer to a call: the sum, as text.
fn answered(message: &str) -> bool {
    message.contains(r#""text":"3""#) && !message.contains(r#""isError":true"#)
}

/// A server on stdio, its session initialized.
pub struct StdioSession {
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl StdioSession {
    /// Initializes the session of `child` (spawned with piped stdio).
    pub async fn open(child: &mut Child) -> Result<Self, String> {
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut session = StdioSession {
            stdin,
            lines: BufReader::new(stdout).lines(),
        };
        session.send(INITIALIZE).await?;
        loop {
            let line = session.next_line().await?;
            if line.contains(r#""id":0"#) {
                break;
            }
        }
        session.send(INITIALIZED).await?;
        Ok(session)
    }

    async fn send(&mut self, message: &str) -> Result<(), String> {
        let mut line = String::with_capacity(message.len() + 1);
        line.push_str(message);
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.map_err(|err| err.to_string())
    }

    async fn next_line(&mut self) -> Result<String, String> {
        match self.lines.next_line().await {
            Ok(Some(line)) => Ok(line),
            Ok(None) => Err("the server closed its stdout".into()),
            Err(err) => Err(err.to_string()),
        }
    }

    /// Calls until `until` with `window` calls in flight.
    pub async fn run(&mut self, window: usize, until: Instant) -> Result<Tally, String> {
        let mut tally = Tally::default();
        let mut sent: HashMap<u64, Instant> = HashMap::new();
        let mut next = 1u64;
        for _ in 0..window {
            sent.insert(next, Instant::now());
            self.send(&call(next)).await?;
            next += 1;
        }
        while !sent.is_empty() {
            let line = self.next_line().await?;
            let Some(id) = id_of(&line) else { continue };
            let Some(started) = sent.remove(&id) else { continue };
            match answered(&line) {
                true => {
                    tally.requests += 1;
                    tally.latencies_us.push(started.elapsed().as_micros() as u64);
                }
                false => tally.errors += 1,
            }
            if Instant::now() < until {
                sent.insert(next, Instant::now());
                self.send(&call(next)).await?;
                next += 1;
            }
        }
        Ok(tally)
    }
}

/// The `id` of a response line (a number), if it is one.
fn id_of(line: &str) -> Option<u64> {
    if line.contains(r#""method""#) {
        return None;
    }
    let start = line.rfind(r#""id":"#)? + 5;
    let digits: String = line[start..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Runs `conns` HTTP clients, each in a session of its own, until `until`.
pub async fn run_http(url: &str, conns: usize, until: Instant) -> Tally {
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            let url = url.to_owned();
            tokio::spawn(async move { http_client(&url, until).await.unwrap_or_else(|err| {
                eprintln!("# an HTTP client failed: {err}");
                Tally { errors: 1, ..Tally::default() }
            }) })
        })
        .collect();
    let mut tally = Tally::default();
    for client in clients {
        if let Ok(seen) = client.await {
            tally.requests += seen.requests;
            tally.errors += seen.errors;
            tally.latencies_us.extend(seen.latencies_us);
        }
    }
    tally
}

struct HttpSession {
    sender: SendRequest<Full<Bytes>>,
    authority: String,
    path: String,
    session: Option<String>,
}

impl HttpSession {
    async fn post(&mut self, body: String) -> Result<(u16, Option<String>, String), String> {
        let mut request = hyper::Request::post(&self.path)
            .header("host", &self.authority)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request.body(Full::new(Bytes::from(body))).map_err(|e| e.to_string())?;
        self.sender.ready().await.map_err(|e| e.to_string())?;
        let response = self.sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
        Ok((status, session, String::from_utf8_lossy(&body).into_owned()))
    }
}

async fn http_client(url: &str, until: Instant) -> Result<Tally, String> {
    let rest = url.strip_prefix("http://").ok_or("not an http:// URL")?;
    let (authority, path) = rest.split_once('/').ok_or("no path")?;
    let stream = TcpStream::connect(authority).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let mut session = HttpSession {
        sender,
        authority: authority.to_owned(),
        path: format!("/{path}"),
        session: None,
    };
    let (status, id, _) = session.post(INITIALIZE.to_owned()).await?;
    if status != 200 {
        return Err(format!("initialize answered {status}"));
    }
    session.session = id;
    session.post(INITIALIZED.to_owned()).await?;
    let mut tally = Tally::default();
    let mut id = 1;
    while Instant::now() < until {
        let started = Instant::now();
        let (status, _, body) = session.post(call(id)).await?;
        id += 1;
        match status == 200 && answered(&body) {
            true => {
                tally.requests += 1;
                tally.latencies_us.push(started.elapsed().as_micros() as u64);
            }
            false => tally.errors += 1,
        }
    }
    Ok(tally)
}

/// The warm-up before a measured window.
pub const WARMUP: Duration = Duration::from_secs(1);
