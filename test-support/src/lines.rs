//! A child's output read line by line on a thread of its own, to its end,
//! so that a full pipe never blocks the child; and waiting for the line in
//! which a server announces itself.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// The most lines a [`Lines`] keeps unread: past it the oldest go, so that
/// a chatty child nobody reads never grows memory without bound.
const KEPT: usize = 1000;

#[derive(Default)]
struct Queue {
    lines: VecDeque<String>,
    ended: bool,
}

/// A child's output, read line by line on a thread of its own to its end,
/// whether or not anyone reads the lines.
///
/// ```
/// use std::time::Duration;
/// use typed_rpc_test_support::lines::Lines;
///
/// let output = &b"starting\nlistening on http://127.0.0.1:3000\n"[..];
/// let mut lines = Lines::read(output, "a server".to_owned());
/// let url = lines.wait_for("listening on ", Duration::from_secs(5)).unwrap();
/// assert_eq!(url, "http://127.0.0.1:3000");
/// assert!(lines.wait_for("never", Duration::from_secs(5)).is_err());
/// ```
pub struct Lines {
    shown: String,
    queue: Arc<(Mutex<Queue>, Condvar)>,
}

impl Lines {
    /// Reads `pipe` on a thread; `shown` names it in messages.
    pub fn read(pipe: impl Read + Send + 'static, shown: String) -> Lines {
        let queue = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let writer = queue.clone();
        std::thread::spawn(move || {
            let (queue, arrived) = &*writer;
            let push = |line: Option<String>| {
                let mut queue = queue.lock().unwrap_or_else(|p| p.into_inner());
                match line {
                    Some(line) => {
                        if queue.lines.len() == KEPT {
                            queue.lines.pop_front();
                        }
                        queue.lines.push_back(line);
                    }
                    None => queue.ended = true,
                }
                arrived.notify_all();
            };
            let mut reader = BufReader::new(pipe);
            let mut line = Vec::new();
            // Bytes, not `lines()`: a line that is not UTF-8 must not stop the reading.
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let text = String::from_utf8_lossy(&line);
                push(Some(text.trim_end_matches(['\n', '\r']).to_owned()));
                line.clear();
            }
            push(None);
        });
        Lines { shown, queue }
    }

    /// The next line, waiting up to `limit`; `None` when the output ended
    /// or time ran out.
    pub fn next_within(&mut self, limit: Duration) -> Option<String> {
        let (queue, arrived) = &*self.queue;
        let queue = queue.lock().unwrap_or_else(|p| p.into_inner());
        let (mut queue, _) = arrived
            .wait_timeout_while(queue, limit, |queue| queue.lines.is_empty() && !queue.ended)
            .unwrap_or_else(|p| p.into_inner());
        queue.lines.pop_front()
    }

    /// Reads lines until one starts with `prefix`, for up to `limit`; the
    /// rest of that line, trimmed. The error quotes the last lines read.
    pub fn wait_for(&mut self, prefix: &str, limit: Duration) -> Result<String> {
        let what = format!("a line starting with `{prefix}`");
        self.wait_until(&what, limit, |line| {
            line.strip_prefix(prefix).map(|rest| rest.trim().to_owned())
        })
    }

    /// Reads lines until `found` makes something of one, for up to
    /// `limit`; what it made. `what` names the line sought in the error,
    /// which quotes the last lines read.
    pub fn wait_until<T>(
        &mut self,
        what: &str,
        limit: Duration,
        mut found: impl FnMut(&str) -> Option<T>,
    ) -> Result<T> {
        let deadline = Instant::now() + limit;
        let mut passed = VecDeque::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = self.next_within(left) else {
                let why = match self.ended() {
                    true => "ended".to_owned(),
                    false => format!("printed nothing more within {limit:?}"),
                };
                return Err(Error::new(format!(
                    "{} {why} before {what}; its last lines:\n{}",
                    self.shown,
                    Vec::from(passed).join("\n")
                )));
            };
            if let Some(made) = found(&line) {
                return Ok(made);
            }
            if passed.len() == 20 {
                passed.pop_front();
            }
            passed.push_back(line);
        }
    }

    /// Whether the output has ended and every line was read.
    pub fn ended(&self) -> bool {
        let queue = self.queue.0.lock().unwrap_or_else(|p| p.into_inner());
        queue.ended && queue.lines.is_empty()
    }

    /// The lines read so far and not yet taken, taking them.
    pub fn take_all(&mut self) -> Vec<String> {
        let mut queue = self.queue.0.lock().unwrap_or_else(|p| p.into_inner());
        queue.lines.drain(..).collect()
    }
}
