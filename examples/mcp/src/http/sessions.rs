//! Classic-generation sessions over Streamable HTTP: each `Mcp-Session-Id`
//! with its state, its event streams (kept for resumption), the server's
//! calls waiting for the client's answers, and its requests running (for
//! `notifications/cancelled`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::events::EventStream;
use crate::server::Session;

/// The most streams a session keeps for resumption; the oldest ended ones
/// go first.
const MAX_STREAMS: usize = 64;

/// One session.
pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) state: Arc<Session>,
    /// Stream 0: the session's own (`GET`) stream.
    pub(crate) standalone: Arc<EventStream>,
    streams: Mutex<Vec<Arc<EventStream>>>,
    next_stream: AtomicU64,
    /// The server's calls to the client, by id, waiting for the answers
    /// the client `POST`s.
    calls: Mutex<HashMap<u64, oneshot::Sender<String>>>,
    next_call: AtomicU64,
    /// The client's requests running, by id (as JSON text).
    running: Mutex<HashMap<String, AbortHandle>>,
    last_seen: Mutex<Instant>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl HttpSession {
    fn new(id: String) -> Self {
        HttpSession {
            id,
            state: Arc::new(Session::default()),
            standalone: EventStream::new(0, true),
            streams: Mutex::new(Vec::new()),
            next_stream: AtomicU64::new(1),
            calls: Mutex::new(HashMap::new()),
            next_call: AtomicU64::new(1),
            running: Mutex::new(HashMap::new()),
            last_seen: Mutex::new(Instant::now()),
        }
    }

    /// A new stream of a request, kept for resumption.
    pub(crate) fn open_stream(&self) -> Arc<EventStream> {
        let stream = EventStream::new(self.next_stream.fetch_add(1, Ordering::Relaxed), true);
        let mut streams = lock(&self.streams);
        if streams.len() >= MAX_STREAMS {
            // The oldest stream nobody reads any more.
            if let Some(old) = streams.iter().position(|s| !s.is_read()) {
                streams.remove(old);
            } else {
                streams.remove(0);
            }
        }
        streams.push(stream.clone());
        stream
    }

    /// The stream numbered `number`, if the session still keeps it.
    pub(crate) fn stream(&self, number: u64) -> Option<Arc<EventStream>> {
        if number == 0 {
            return Some(self.standalone.clone());
        }
        lock(&self.streams)
            .iter()
            .find(|s| s.number() == number)
            .cloned()
    }

    /// A new call to the client: its id, and where its answer will come.
    pub(crate) fn expect_answer(&self) -> (u64, oneshot::Receiver<String>) {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        lock(&self.calls).insert(id, sender);
        (id, receiver)
    }

    /// Forgets the call `id` (answered, given up on).
    pub(crate) fn forget_call(&self, id: u64) {
        lock(&self.calls).remove(&id);
    }

    /// Hands the client's `answer` to the call `id`; `false` if none waits.
    pub(crate) fn answer(&self, id: u64, answer: String) -> bool {
        match lock(&self.calls).remove(&id) {
            Some(waiting) => waiting.send(answer).is_ok(),
            None => false,
        }
    }

    pub(crate) fn started(&self, id: String, task: AbortHandle) {
        lock(&self.running).insert(id, task);
    }

    pub(crate) fn finished(&self, id: &str) {
        lock(&self.running).remove(id);
    }

    /// Stops the request `id` if it is running: it is never answered.
    pub(crate) fn cancel(&self, id: &str) -> bool {
        match lock(&self.running).remove(id) {
            Some(task) => {
                task.abort();
                true
            }
            None => false,
        }
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_seen).elapsed()
    }

    /// Ends the session: its requests stop, its streams end.
    fn close(&self) {
        for (_, task) in lock(&self.running).drain() {
            task.abort();
        }
        lock(&self.calls).clear();
        self.standalone.finish(None);
        for stream in lock(&self.streams).drain(..) {
            stream.finish(None);
        }
    }
}

/// Every session of a server.
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
}

impl Sessions {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        Sessions {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    /// A new session, or `None` when the server holds as many as it may
    /// (after dropping those idle too long).
    pub(crate) fn create(&self) -> Option<Arc<HttpSession>> {
        self.expire();
        let mut map = lock(&self.map);
        if map.len() >= self.max {
            return None;
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let session = Arc::new(HttpSession::new(id.clone()));
        map.insert(id, session.clone());
        Some(session)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let session = lock(&self.map).get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends and forgets the session `id`; `false` if there is none.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let removed = lock(&self.map).remove(id);
        removed.inspect(|session| session.close()).is_some()
    }

    /// Ends the sessions idle longer than the limit.
    pub(crate) fn expire(&self) {
        let expired: Vec<Arc<HttpSession>> = {
            let mut map = lock(&self.map);
            let idle: Vec<String> = map
                .iter()
                .filter(|(_, session)| {
                    session.idle_for() > self.idle && lock(&session.running).is_empty()
                })
                .map(|(id, _)| id.clone())
                .collect();
            idle.iter().filter_map(|id| map.remove(id)).collect()
        };
        for session in expired {
            tracing::debug!(session = %session.id, "an idle session expired");
            session.close();
        }
    }

    /// Ends every session.
    pub(crate) fn close_all(&self) {
        let all: Vec<Arc<HttpSession>> = lock(&self.map).drain().map(|(_, s)| s).collect();
        all.iter().for_each(|session| session.close());
    }
}
