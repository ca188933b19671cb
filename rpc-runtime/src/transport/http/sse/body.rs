//! The body of a Server-Sent Events response: the queued events, then the
//! call's own reply, with keep-alive comments while nothing comes.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc::{self, error::TryRecvError};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::chunks::{Chunks, GATHER};
use super::data_lines::data_event;
use super::events::{Event, ItemEvents};
use crate::transport::http::server::AnsweredLater;

/// The call that answers the request: it runs while the body is read, and
/// its handlers' events come through the queue.
pub(super) type Running = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// A stream of events, polled by hyper only as fast as the client reads:
/// a handler sending events waits on the bounded queue in between, and a
/// streaming method's items are pulled from its stream here, as the chunks
/// are. Dropped when the client goes away, and the call and the stream with it.
pub(crate) struct EventBody {
    /// An event taken from the queue before the response began.
    first: Option<Bytes>,
    events: mpsc::Receiver<Event>,
    /// `None` once it has finished.
    running: Option<Running>,
    /// A streaming method's items, pulled as the client reads.
    items: Option<Box<ItemEvents>>,
    /// The call's reply, sent after the events it queued.
    last: Option<Bytes>,
    /// The buffers the chunks are gathered in.
    chunks: Chunks,
    keep_alive: Duration,
    quiet: Pin<Box<Sleep>>,
    /// Ends the stream cleanly, between two events, at a graceful shutdown.
    stopping: Pin<Box<WaitForCancellationFutureOwned>>,
    ended: bool,
    /// Runs when the body is dropped: ended, or its client gone.
    when_ended: Option<AnsweredLater>,
}

impl Drop for EventBody {
    fn drop(&mut self) {
        // Before the other fields: the connection is answered first.
        drop(self.when_ended.take());
    }
}

impl EventBody {
    pub(super) fn new(
        events: mpsc::Receiver<Event>,
        first: Option<Event>,
        running: Option<Running>,
        last: Option<String>,
        keep_alive: Duration,
        stopping: WaitForCancellationFutureOwned,
    ) -> Self {
        let (first, items) = match first {
            Some(Event::Data(data)) => (Some(data), None),
            Some(Event::Items(items)) => (None, Some(items)),
            None => (None, None),
        };
        EventBody {
            first,
            events,
            running,
            items,
            last: last.map(|reply| Bytes::from(data_event(&reply))),
            chunks: Chunks::default(),
            keep_alive,
            quiet: Box::pin(tokio::time::sleep(keep_alive)),
            stopping: Box::pin(stopping),
            ended: false,
            when_ended: None,
        }
    }

    /// Runs `ended` once the body has ended or is dropped.
    pub(super) fn when_ended(mut self, ended: AnsweredLater) -> Self {
        self.when_ended = Some(ended);
        self
    }

    /// The next chunk to send; `None` at the end of the stream.
    ///
    /// A chunk holds every event ready, up to [`GATHER`] bytes. Each chunk
    /// costs hyper a chunk header and a buffer in its write queue, the
    /// kernel a piece of its `writev`, and the keep-alive timer a reset,
    /// so a fast stream pays them per batch of events, not per event.
    pub(crate) fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(self.sent(first)));
        }
        let mut chunk = self.chunks.start();
        let polled = self.gather(cx, &mut chunk);
        if !chunk.is_empty() {
            let chunk = self.chunks.finish(chunk);
            return Poll::Ready(Some(self.sent(chunk)));
        }
        self.chunks.put_back(chunk);
        match polled {
            Gathered::Ended => {
                self.ended = true;
                Poll::Ready(self.last.take())
            }
            // `gather` has marked the stream ended.
            Gathered::Stopping => Poll::Ready(None),
            Gathered::Waiting if self.quiet.as_mut().poll(cx).is_ready() => {
                Poll::Ready(Some(self.sent(Bytes::from_static(KEEP_ALIVE))))
            }
            Gathered::Waiting | Gathered::Full => Poll::Pending,
        }
    }

    /// Appends every event ready to `chunk`, up to [`GATHER`] bytes: the
    /// queued ones first, then a streaming method's items, and the running
    /// call is polled for more while there is room.
    fn gather(&mut self, cx: &mut Context<'_>, chunk: &mut Vec<u8>) -> Gathered {
        loop {
            if chunk.len() >= GATHER {
                return Gathered::Full;
            }
            match self.poll_event(cx, chunk) {
                Poll::Ready(true) => {
                    Chunks::grow(chunk);
                    continue;
                }
                // The reply goes in a chunk of its own, after the events.
                Poll::Ready(false) => return Gathered::Ended,
                Poll::Pending => {}
            }
            if let Some(running) = self.running.as_mut()
                && let Poll::Ready(reply) = running.as_mut().poll(cx)
            {
                self.running = None;
                self.last = reply.map(|reply| Bytes::from(data_event(&reply)));
                continue;
            }
            if self.stopping.as_mut().poll(cx).is_ready() {
                // Whole events only: what is gathered, then, for a stream
                // still running, the event saying it was cut, then the end.
                if let Some(items) = self.items.take() {
                    items.write_shutdown(chunk);
                }
                self.ended = true;
                self.running = None;
                return Gathered::Stopping;
            }
            if !self.events.is_empty() {
                // The call queued more while it ran: room for them.
                continue;
            }
            return Gathered::Waiting;
        }
    }

    /// Appends the next events to `chunk`: a streaming method's items
    /// while they come, as many as are ready and there is room for (what
    /// its handler queued before them has gone out already), else a queued
    /// one. `Ready(false)` once there will be none (the call finished, its
    /// queue and its items ended); `Pending` while there is none yet.
    fn poll_event(&mut self, cx: &mut Context<'_>, chunk: &mut Vec<u8>) -> Poll<bool> {
        if let Some(items) = self.items.as_mut() {
            match items.poll_events(cx, chunk, Chunks::room(chunk.capacity())) {
                Poll::Ready(true) => return Poll::Ready(true),
                // Its last event, if it failed, is in the chunk now.
                Poll::Ready(false) => {
                    self.items = None;
                    return Poll::Ready(true);
                }
                Poll::Pending => {}
            }
        }
        // `try_recv` first: `poll_recv` answers `Pending` once the task's
        // cooperative budget is spent, even with events queued, and the
        // gathering would then go round without end.
        let event = match (self.events.try_recv(), &self.running) {
            (Ok(event), _) => Poll::Ready(Some(event)),
            (Err(TryRecvError::Empty), Some(_)) => self.events.poll_recv(cx),
            // Finished: what it queued; a handle it left behind sends nothing more.
            (Err(_), _) => Poll::Ready(None),
        };
        match event {
            Poll::Ready(Some(Event::Data(data))) => {
                chunk.extend_from_slice(&data);
                Poll::Ready(true)
            }
            Poll::Ready(Some(Event::Items(items))) => {
                self.items = Some(items);
                Poll::Ready(true)
            }
            // The items, still running, wake the body when they have more.
            Poll::Ready(None) if self.items.is_some() => Poll::Pending,
            Poll::Ready(None) => Poll::Ready(false),
            Poll::Pending => Poll::Pending,
        }
    }

    /// `chunk`, noted as sent now: the next keep-alive is due a whole interval later.
    fn sent(&mut self, chunk: Bytes) -> Bytes {
        self.quiet.as_mut().reset(Instant::now() + self.keep_alive);
        chunk
    }
}

/// Why [`EventBody::gather`] stopped.
enum Gathered {
    /// The chunk is full.
    Full,
    /// No event is ready now.
    Waiting,
    /// The events have ended: the call's reply, if it has one, is last.
    Ended,
    /// The server is shutting down: the stream ends after what is gathered.
    Stopping,
}
