//! The A2A load (`a2a_bench`): clients on keep-alive HTTP/1.1 connections
//! doing what an A2A caller does, against any agent that serves the text
//! agent's `upper` skill (ours, `text-agent`; the Python SDK's,
//! `reference_agent.py`).
//!
//! - `unary`: `SendMessage` with `returnImmediately`, then `GetTask` of the
//!   task it answered with; two requests a round.
//! - `stream`: `SendStreamingMessage` whose task makes [`STREAM_EVENTS`]
//!   events (the task, `working`, 97 artifact chunks, `completed`), read to
//!   the end; one request a round.
//! - [`big_stream`]: one `SendStreamingMessage` of a 1 MB `upper` (256
//!   chunks of 4 KiB), read to its last event.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// Numbers the messages of this process: every message needs a `messageId`
/// of its own, or the agents answer it as a retry of an earlier one.
static MESSAGES: AtomicU64 = AtomicU64::new(0);

/// Events in one benchmark stream.
pub const STREAM_EVENTS: usize = 100;

/// The artifact chunk size of the text agent's `upper` skill, in characters.
const CHUNK_CHARS: usize = 8;

/// What one client does a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// `SendMessage` (`returnImmediately`) + `GetTask`.
    Unary,
    /// One `SendStreamingMessage` of [`STREAM_EVENTS`] events.
    Stream,
}

/// What the clients saw in a window.
#[derive(Debug, Default)]
pub struct Tally {
    /// Requests answered as expected.
    pub requests: u64,
    /// Requests that failed or were answered otherwise.
    pub errors: u64,
    /// The latency of each answered request, microseconds.
    pub latencies_us: Vec<u64>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.requests += other.requests;
        self.errors += other.errors;
        self.latencies_us.extend(other.latencies_us);
    }

    /// The `q` quantile (0..=1) of the latencies, microseconds.
    pub fn quantile_us(&mut self, q: f64) -> f64 {
        if self.latencies_us.is_empty() {
            return f64::NAN;
        }
        self.latencies_us.sort_unstable();
        let at = ((self.latencies_us.len() - 1) as f64 * q).round() as usize;
        self.latencies_us[at] as f64
    }
}

/// Runs `conns` clients of `workload` against the JSON-RPC endpoint `url`
/// (`http://HOST:PORT/PATH`) until `until`, tallying what they saw.
pub async fn run(url: &str, workload: Workload, conns: usize, until: Instant) -> Tally {
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            let url = url.to_owned();
            tokio::spawn(async move { client_loop(&url, workload, until).await })
        })
        .collect();
    let mut tally = Tally::default();
    for client in clients {
        match client.await {
            Ok(seen) => tally.merge(seen),
            Err(_) => tally.errors += 1,
        }
    }
    tally
}

async fn client_loop(url: &str, workload: Workload, until: Instant) -> Tally {
    let mut tally = Tally::default();
    let Some((addr, path)) = split_url(url) else {
        tally.errors += 1;
        return tally;
    };
    while Instant::now() < until {
        let Ok(mut sender) = connect(&addr).await else {
            tally.errors += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        while Instant::now() < until {
            let message = MESSAGES.fetch_add(1, Ordering::Relaxed);
            let message_id = format!("bench-{}-{message}", std::process::id());
            let ok = match workload {
                Workload::Unary => {
                    unary_round(&mut sender, &addr, &path, &message_id, &mut tally).await
                }
                Workload::Stream => {
                    stream_round(&mut sender, &addr, &path, &message_id, &mut tally).await
                }
            };
            if !ok {
                tally.errors += 1;
                break; // a new connection: this one may be broken
            }
        }
    }
    tally
}

async fn unary_round(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: &str,
    path: &str,
    message_id: &str,
    tally: &mut Tally,
) -> bool {
    let send = rpc_body(
        "SendMessage",
        &format!(
            r#"{{"message":{{"messageId":"{message_id}","role":"ROLE_USER","parts":[{{"text":"upper benchmark words"}}]}},"configuration":{{"returnImmediately":true}}}}"#
        ),
    );
    let Some(reply) = timed(sender, addr, path, send, false, tally).await else {
        return false;
    };
    let Some(task_id) = task_id(&reply) else {
        return false;
    };
    let get = rpc_body("GetTask", &format!(r#"{{"id":"{task_id}"}}"#));
    let Some(reply) = timed(sender, addr, path, get, false, tally).await else {
        return false;
    };
    task_id_of_task(&reply).is_some_and(|id| id == task_id)
}

async fn stream_round(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: &str,
    path: &str,
    message_id: &str,
    tally: &mut Tally,
) -> bool {
    // The task, `working`, the chunks, `completed`.
    let words = "x".repeat((STREAM_EVENTS - 3) * CHUNK_CHARS);
    let body = rpc_body(
        "SendStreamingMessage",
        &format!(
            r#"{{"message":{{"messageId":"{message_id}","role":"ROLE_USER","parts":[{{"text":"upper {words}"}}]}}}}"#
        ),
    );
    let Some(reply) = timed(sender, addr, path, body, true, tally).await else {
        return false;
    };
    let text = String::from_utf8_lossy(&reply);
    text.matches("data:").count() == STREAM_EVENTS && !text.contains("\"error\"")
}

/// Sends one request and reads its whole answer; counts it in `tally` when it is a 200.
async fn timed(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: &str,
    path: &str,
    body: String,
    stream: bool,
    tally: &mut Tally,
) -> Option<Bytes> {
    let mut request = hyper::Request::post(path)
        .header("host", addr)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0");
    if stream {
        request = request.header("accept", "text/event-stream");
    }
    let request = request.body(Full::new(Bytes::from(body))).ok()?;
    let started = Instant::now();
    sender.ready().await.ok()?;
    let answer = sender.send_request(request).await.ok()?;
    if answer.status() != 200 {
        return None;
    }
    let body = answer.into_body().collect().await.ok()?.to_bytes();
    tally.requests += 1;
    tally
        .latencies_us
        .push(started.elapsed().as_micros() as u64);
    Some(body)
}

async fn connect(addr: &str) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    Ok(sender)
}

/// The words of [`big_stream`]: 1 MiB, which the agents cut in [`BIG_CHUNKS`] chunks.
pub const BIG_WORDS: usize = 1 << 20;

/// The chunks a text longer than 2 048 characters makes.
pub const BIG_CHUNKS: usize = 256;

/// One `SendStreamingMessage` of a [`BIG_WORDS`] `upper` to the endpoint
/// `url`, on a connection of its own, read to the end: the time from the
/// request's first byte to the stream's last, once it is checked to hold
/// every chunk and the completed status.
pub async fn big_stream(url: &str, message_id: &str) -> Result<Duration, String> {
    let (addr, path) = split_url(url).ok_or("not an http:// URL")?;
    let mut sender = connect(&addr).await?;
    let words = "x".repeat(BIG_WORDS);
    let body = rpc_body(
        "SendStreamingMessage",
        &format!(
            r#"{{"message":{{"messageId":"{message_id}","role":"ROLE_USER","parts":[{{"text":"upper {words}"}}]}}}}"#
        ),
    );
    let request = hyper::Request::post(path)
        .header("host", &addr)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("accept", "text/event-stream")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    sender.ready().await.map_err(|e| e.to_string())?;
    let answer = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = answer.status();
    let body = answer
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    let elapsed = started.elapsed();
    let text = String::from_utf8_lossy(&body);
    let chunks = text.matches("\"artifactUpdate\"").count();
    let completed = text
        .trim_end()
        .rsplit("data:")
        .next()
        .is_some_and(|last| last.contains("TASK_STATE_COMPLETED"));
    if status != 200 || chunks != BIG_CHUNKS || !completed {
        return Err(format!(
            "{status}, {chunks} chunks, completed: {completed}, {} bytes",
            body.len()
        ));
    }
    Ok(elapsed)
}

fn rpc_body(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#)
}

/// `HOST:PORT` and the path of an `http://` URL.
fn split_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("http://")?;
    let (addr, path) = rest.split_once('/').unwrap_or((rest, ""));
    Some((addr.to_owned(), format!("/{path}")))
}

/// The id of the task a `SendMessage` answered with.
fn task_id(reply: &[u8]) -> Option<String> {
    let reply: serde_json::Value = serde_json::from_slice(reply).ok()?;
    Some(reply["result"]["task"]["id"].as_str()?.to_owned())
}

/// The id of the task a `GetTask` answered with.
fn task_id_of_task(reply: &[u8]) -> Option<String> {
    let reply: serde_json::Value = serde_json::from_slice(reply).ok()?;
    Some(reply["result"]["id"].as_str()?.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_address_and_path() {
        assert_eq!(
            split_url("http://127.0.0.1:80/a2a"),
            Some(("127.0.0.1:80".into(), "/a2a".into()))
        );
        assert_eq!(split_url("ws://x/"), None);
    }

    #[test]
    fn the_quantile_is_of_the_sorted_latencies() {
        let mut tally = Tally {
            latencies_us: (1..=100).rev().collect(),
            ..Tally::default()
        };
        assert_eq!(tally.quantile_us(0.99), 99.0);
        assert_eq!(tally.quantile_us(0.0), 1.0);
    }
}
