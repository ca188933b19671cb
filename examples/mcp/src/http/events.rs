//! Event streams: what a request (or a session's `GET` stream) sends the
//! client as Server-Sent Events, numbered so that a client that lost the
//! connection can resume with `Last-Event-ID`, kept within bounds so that
//! a slow or gone client never grows memory without end.

use std::collections::VecDeque;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::Notify;

/// The most events sent to a connected client and not yet read by it;
/// past this, whoever sends waits (backpressure).
const MAX_UNREAD: usize = 64;
/// The most events a resumable stream keeps for a client that reconnects.
const MAX_KEPT: usize = 256;
/// How often a quiet stream sends a comment, so that proxies and clients
/// do not take it for dead.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a client told to reconnect waits first, in milliseconds.
pub(crate) const RETRY_MS: u64 = 1000;

/// One stream of events.
pub(crate) struct EventStream {
    /// Its number within the session: the first part of its event ids.
    number: u64,
    /// Whether events are kept after they are read, for resumption.
    resumable: bool,
    state: Mutex<State>,
    /// Wakes senders waiting for the client to read.
    room: Notify,
}

struct State {
    /// Events not yet dropped, oldest first; numbered from 1.
    events: VecDeque<(u64, Arc<str>)>,
    next: u64,
    /// The number of the next event the attached reader reads.
    read: u64,
    /// The reader attached now (each attach has a new generation).
    reader: Option<u64>,
    generation: u64,
    reader_waker: Option<Waker>,
    ended: bool,
    /// Set when a reader let go before the end (the client left).
    abandoned: bool,
    /// Woken when the stream gets its first event or ends.
    settled: Option<Waker>,
    /// The task to stop when the client leaves before the end.
    abort_when_abandoned: Option<tokio::task::AbortHandle>,
}

impl EventStream {
    pub(crate) fn new(number: u64, resumable: bool) -> Arc<Self> {
        Arc::new(EventStream {
            number,
            resumable,
            state: Mutex::new(State {
                events: VecDeque::new(),
                next: 1,
                read: 1,
                reader: None,
                generation: 0,
                reader_waker: None,
                ended: false,
                abandoned: false,
                settled: None,
                abort_when_abandoned: None,
            }),
            room: Notify::new(),
        })
    }

    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends `message` (a JSON-RPC message's text): waits while the
    /// attached client has [`MAX_UNREAD`] events to read. `false` once
    /// the stream has ended.
    pub(crate) async fn send(&self, message: Arc<str>) -> bool {
        loop {
            let room = self.room.notified();
            let mut room = pin!(room);
            room.as_mut().enable();
            {
                let mut state = self.lock();
                if state.ended {
                    return false;
                }
                let unread = (state.next - state.read) as usize;
                if state.reader.is_none() || unread < MAX_UNREAD {
                    self.push(&mut state, message);
                    return true;
                }
            }
            room.await;
        }
    }

    /// Sends `message` now, even past the bound (a cancel notification
    /// from a `Drop`, which cannot wait); `false` once ended.
    pub(crate) fn send_now(&self, message: Arc<str>) -> bool {
        let mut state = self.lock();
        if state.ended {
            return false;
        }
        self.push(&mut state, message);
        true
    }

    fn push(&self, state: &mut State, message: Arc<str>) {
        let number = state.next;
        state.next += 1;
        state.events.push_back((number, message));
        self.trim(state);
        wake(&mut state.reader_waker);
        wake(&mut state.settled);
    }

    /// Drops the events no one can read any more.
    fn trim(&self, state: &mut State) {
        let read = if state.reader.is_some() || !self.resumable {
            state.read
        } else {
            // Nobody reads now: keep what a reconnecting client may ask for.
            state.next
        };
        let keep = if self.resumable { MAX_KEPT } else { 0 };
        while let Some(&(number, _)) = state.events.front() {
            let read_long_ago = number < read && state.events.len() > keep;
            let too_many = state.events.len() > MAX_KEPT.max(MAX_UNREAD);
            if !(read_long_ago || too_many) {
                break;
            }
            state.events.pop_front();
        }
    }

    /// Ends the stream after `last` (the reply, if any): the reader ends
    /// once it has read everything.
    pub(crate) fn finish(&self, last: Option<String>) {
        let mut state = self.lock();
        if state.ended {
            return;
        }
        if let Some(last) = last {
            self.push(&mut state, Arc::from(last));
        }
        state.ended = true;
        wake(&mut state.reader_waker);
        wake(&mut state.settled);
        drop(state);
        self.room.notify_waiters();
    }

    /// Resolves once the stream has an event or has ended.
    pub(crate) async fn settled(&self) {
        std::future::poll_fn(|cx| {
            let mut state = self.lock();
            if !state.events.is_empty() || state.ended {
                return Poll::Ready(());
            }
            state.settled = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
    }

    /// The stream's one event, when it has ended with nothing but its
    /// reply: to send as a plain JSON response.
    pub(crate) fn only_reply(&self) -> Option<Arc<str>> {
        let mut state = self.lock();
        let single =
            state.ended && state.reader.is_none() && state.events.len() == 1 && state.read == 1;
        single
            .then(|| state.events.pop_front().map(|(_, message)| message))
            .flatten()
    }

    /// Stops `task` when the client leaves before the stream ends (a
    /// closed stream cancels a 2026-07-28 request).
    pub(crate) fn abort_when_abandoned(&self, task: tokio::task::AbortHandle) {
        let mut state = self.lock();
        match state.abandoned {
            true => task.abort(),
            false => state.abort_when_abandoned = Some(task),
        }
    }

    /// Whether the stream has ended without a reader having read it all.
    #[cfg(test)]
    pub(crate) fn is_abandoned(&self) -> bool {
        self.lock().abandoned
    }

    /// Whether a reader is attached.
    pub(crate) fn is_read(&self) -> bool {
        self.lock().reader.is_some()
    }

    /// A body reading the stream from after event `after` (0: from the
    /// start), replacing any reader attached before. `prime`: begin with
    /// an event that has an id and no data, so that the client can
    /// resume even before the first message.
    pub(crate) fn reader(self: &Arc<Self>, after: u64, prime: bool) -> SseBody {
        let generation = {
            let mut state = self.lock();
            state.generation += 1;
            state.reader = Some(state.generation);
            let oldest = state
                .events
                .front()
                .map_or(state.next, |&(number, _)| number);
            state.read = (after + 1).max(oldest);
            wake(&mut state.reader_waker);
            state.generation
        };
        self.room.notify_waiters();
        SseBody {
            stream: self.clone(),
            generation,
            primed: !prime,
            keep_alive: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        }
    }

    /// The id of event `number`.
    fn event_id(&self, number: u64) -> String {
        format!("{}-{number}", self.number)
    }
}

/// The stream and event an event id names.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, event) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, event.parse().ok()?))
}

fn wake(waker: &mut Option<Waker>) {
    if let Some(waker) = waker.take() {
        waker.wake();
    }
}

/// A response body reading an [`EventStream`] as Server-Sent Events.
pub(crate) struct SseBody {
    stream: Arc<EventStream>,
    generation: u64,
    primed: bool,
    keep_alive: Pin<Box<tokio::time::Sleep>>,
}

impl SseBody {
    fn frame(text: String) -> Poll<Option<Result<Frame<Bytes>, std::convert::Infallible>>> {
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(text)))))
    }
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if !this.primed {
            this.primed = true;
            let id = this.stream.event_id(0);
            return Self::frame(format!("id: {id}\nretry: {RETRY_MS}\ndata: \n\n"));
        }
        let stream = this.stream.clone();
        let mut state = stream.lock();
        if state.reader != Some(this.generation) {
            // Another reader took over (the client resumed elsewhere).
            return Poll::Ready(None);
        }
        let wanted = state.read;
        if let Some((number, message)) = state.events.iter().find(|(n, _)| *n >= wanted).cloned() {
            state.read = number + 1;
            stream.trim(&mut state);
            drop(state);
            stream.room.notify_waiters();
            this.keep_alive
                .as_mut()
                .reset(tokio::time::Instant::now() + KEEP_ALIVE);
            let id = stream.event_id(number);
            return match stream.resumable {
                true => Self::frame(format!("id: {id}\ndata: {message}\n\n")),
                false => Self::frame(format!("data: {message}\n\n")),
            };
        }
        if state.ended {
            return Poll::Ready(None);
        }
        state.reader_waker = Some(cx.waker().clone());
        drop(state);
        if this.keep_alive.as_mut().poll(cx).is_ready() {
            this.keep_alive
                .as_mut()
                .reset(tokio::time::Instant::now() + KEEP_ALIVE);
            return Self::frame(":\n\n".to_owned());
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        false
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        let mut state = self.stream.lock();
        if state.reader == Some(self.generation) {
            state.reader = None;
            if !(state.ended && state.read == state.next) {
                state.abandoned = true;
                if let Some(task) = state.abort_when_abandoned.take() {
                    task.abort();
                }
            }
            self.stream.trim(&mut state);
            wake(&mut state.settled);
        }
        drop(state);
        self.stream.room.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn text(body: SseBody) -> String {
        let bytes = body.collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_stream_is_read_and_resumed_by_event_id() {
        let stream = EventStream::new(3, true);
        assert!(stream.send(Arc::from("{\"a\":1}")).await);
        assert!(stream.send(Arc::from("{\"a\":2}")).await);
        stream.finish(Some("{\"id\":1}".into()));
        let first = text(stream.reader(0, true)).await;
        assert_eq!(
            first,
            "id: 3-0\nretry: 1000\ndata: \n\nid: 3-1\ndata: {\"a\":1}\n\nid: 3-2\ndata: {\"a\":2}\n\nid: 3-3\ndata: {\"id\":1}\n\n"
        );
        // A client that saw 3-1 resumes after it.
        let resumed = text(stream.reader(1, false)).await;
        assert_eq!(
            resumed,
            "id: 3-2\ndata: {\"a\":2}\n\nid: 3-3\ndata: {\"id\":1}\n\n"
        );
        assert_eq!(parse_event_id("3-1"), Some((3, 1)));
    }

    #[tokio::test]
    async fn a_lone_reply_is_a_plain_response() {
        let stream = EventStream::new(1, false);
        stream.finish(Some("{\"id\":1}".into()));
        assert_eq!(stream.only_reply().as_deref(), Some("{\"id\":1}"));
    }

    #[tokio::test]
    async fn a_sender_waits_for_a_slow_reader() {
        let stream = EventStream::new(1, false);
        let body = stream.reader(0, false);
        for i in 0..MAX_UNREAD {
            assert!(stream.send(Arc::from(i.to_string())).await);
        }
        let blocked =
            tokio::time::timeout(Duration::from_millis(50), stream.send(Arc::from("x"))).await;
        assert!(blocked.is_err(), "the 65th unread event waits");
        drop(body);
        assert!(stream.is_abandoned());
        // With nobody reading, a non-resumable stream keeps nothing back.
        assert!(stream.send(Arc::from("y")).await);
    }
}
