//! A webhook on loopback that can be held: while held, it reads each POST
//! and answers none (its connection stays open, the sender waiting); once
//! released, it drops the held connections and answers every POST `200`,
//! recording it. Mounted with `#[path = "common/held_webhook.rs"]`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One POST the webhook answered.
#[derive(Clone, Debug)]
pub struct Received {
    /// Its `x-a2a-notification-token` header.
    pub token: Option<String>,
    /// Its body, a `StreamResponse`.
    pub body: Value,
}

#[derive(Default)]
struct State {
    /// The connections of the POSTs read while held; `None` once released.
    held: Option<Vec<TcpStream>>,
    /// How many POSTs arrived while held.
    held_posts: usize,
    received: Vec<Received>,
}

/// The webhook, held from the start, serving until the test process ends.
pub struct HeldWebhook {
    url: String,
    state: Arc<Mutex<State>>,
}

impl HeldWebhook {
    pub fn start() -> HeldWebhook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            held: Some(Vec::new()),
            ..State::default()
        }));
        let serving = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = serving.clone();
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        HeldWebhook { url, state }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Waits until `posts` POSTs arrived while held.
    pub fn wait_held(&self, posts: usize, limit: Duration) {
        self.wait_until(limit, |state| state.held_posts >= posts)
            .unwrap_or_else(|| panic!("fewer than {posts} POSTs reached the webhook"));
    }

    /// Answers from now on; the held POSTs' connections are closed unanswered.
    pub fn release(&self) {
        self.state.lock().unwrap().held = None;
    }

    /// The POSTs answered so far, once `done` says they are all there
    /// (`None` when `limit` passes first).
    pub fn received_when(
        &self,
        limit: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Option<Vec<Received>> {
        self.wait_until(limit, |state| done(&state.received))
            .map(|state| state.received)
    }

    fn wait_until(&self, limit: Duration, done: impl Fn(&State) -> bool) -> Option<State> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            {
                let state = self.state.lock().unwrap();
                if done(&state) {
                    return Some(State {
                        held: None,
                        held_posts: state.held_posts,
                        received: state.received.clone(),
                    });
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

/// Serves one connection's POSTs until it closes or is held.
fn serve(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some((token, body)) = read_post(&mut reader) {
        let mut state = state.lock().unwrap();
        if let Some(held) = &mut state.held {
            held.push(writer);
            state.held_posts += 1;
            return;
        }
        let body = serde_json::from_slice(&body).expect("a webhook body is JSON");
        state.received.push(Received { token, body });
        drop(state);
        let answered = writer.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        if answered.is_err() {
            return;
        }
    }
}

/// One request's token header and body; `None` at the connection's end.
fn read_post(reader: &mut BufReader<TcpStream>) -> Option<(Option<String>, Vec<u8>)> {
    let (mut token, mut length) = (None, 0);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().ok()?,
                "x-a2a-notification-token" => token = Some(value.trim().to_owned()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((token, body))
}
