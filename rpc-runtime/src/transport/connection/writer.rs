//! The write loop, the two queues it sends from, and the subscriptions it
//! pulls items from.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Poll, Waker};
use std::time::Duration;

use tokio::sync::mpsc;

use super::producers::{Producer, Producers};
use super::{Direct, DirectReply, MessageWriter, Shared};
use crate::transport::sync::in_flight::Permit;
use crate::transport::sync::lock;
use crate::transport::sync::rare_events::{self, Nudge, Rare};

/// The most bytes written between two flushes: a write to the socket per
/// few dozen TCP segments when a subscription's items keep coming, and a
/// bound on what a transport buffers before the peer takes it.
const FLUSH_AT: usize = 64 * 1024;

/// What goes through the outbox, in order.
pub(super) enum Outbound {
    /// A message to send.
    Message(String),
    /// A subscription whose items the writer sends from now on, after the
    /// messages queued before it (the call's reply among them).
    Stream(Box<Producer>),
    /// Ends a subscription: nothing of it is sent after this.
    Stop(String),
}

impl From<String> for Outbound {
    fn from(message: String) -> Self {
        Outbound::Message(message)
    }
}

/// Sends what is queued until the connection closes; `true` when it ended
/// with everything sent and the connection closed cleanly.
pub(super) async fn write_loop<W: MessageWriter>(
    writer: W,
    outbox: mpsc::Receiver<Outbound>,
    finished: &Finished,
    shared: &Shared,
    timeout: Option<Duration>,
) -> bool {
    let mut queues = Queues {
        outbox,
        armed: None,
        finished,
        producers: Producers::default(),
    };
    let clean = write_all(writer, &mut queues, shared, timeout).await;
    // Nothing more is written: replies handed over from now on are dropped
    // at once, with their permits.
    finished.close();
    clean
}

pub(super) async fn write_all<W: MessageWriter>(
    mut writer: W,
    queues: &mut Queues<'_>,
    shared: &Shared,
    timeout: Option<Duration>,
) -> bool {
    let mut closing = Rare::new(shared.closing.clone().cancelled_owned());
    while let Some(first) = queues.next(&mut closing).await {
        if let Err(err) = write_batch(&mut writer, first, queues, timeout).await {
            // The peer is gone or stuck: stop reading too, and fail the
            // calls waiting.
            tracing::debug!(%err, "connection write failed");
            shared.unreachable.cancel();
            shared.closing.cancel();
            return false;
        }
    }
    // Closing: the subscriptions end here; send what is already queued,
    // then their shutdown notices, then end the connection cleanly.
    queues.producers.close();
    while let Some(message) = queues.try_next() {
        if write(&mut writer, message, queues, timeout).await.is_err() {
            return false;
        }
    }
    if queues.producers.has_gathered()
        && write(&mut writer, Outgoing::Items, queues, timeout)
            .await
            .is_err()
    {
        return false;
    }
    within(timeout, writer.flush()).await.is_ok() && within(timeout, writer.close()).await.is_ok()
}

/// Runs one `write`, failing it with `TimedOut` if it has not finished
/// within `timeout` (a timer made only if the write does not finish at once).
pub(super) async fn within<F>(timeout: Option<Duration>, write: F) -> io::Result<()>
where
    F: Future<Output = io::Result<()>>,
{
    let Some(timeout) = timeout else {
        return write.await;
    };
    rare_events::timeout(timeout, write)
        .await
        .unwrap_or_else(|| {
            Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer read nothing within the write timeout",
            ))
        })
}

/// Writes `first` and everything else ready (queued messages first, then
/// the subscriptions' items), up to [`FLUSH_AT`] bytes, then flushes once.
pub(super) async fn write_batch<W: MessageWriter>(
    writer: &mut W,
    first: Outgoing,
    queues: &mut Queues<'_>,
    timeout: Option<Duration>,
) -> io::Result<()> {
    let mut written = write(writer, first, queues, timeout).await?;
    while written < FLUSH_AT {
        let next = match queues.try_next() {
            Some(message) => message,
            // Nothing queued: the subscriptions' items that are ready, as
            // many as fit.
            None => {
                let room = FLUSH_AT - written;
                let gather = |cx: &mut std::task::Context<'_>| {
                    Poll::Ready(queues.producers.gather(cx, room))
                };
                if std::future::poll_fn(gather).await == 0 {
                    break;
                }
                Outgoing::Items
            }
        };
        written += write(writer, next, queues, timeout).await?;
    }
    within(timeout, writer.flush()).await
}

/// Writes one message, and says how long it was; a reply the reader
/// already put in the transport's buffer needs only the flush that follows.
pub(super) async fn write<W: MessageWriter>(
    writer: &mut W,
    message: Outgoing,
    queues: &mut Queues<'_>,
    timeout: Option<Duration>,
) -> io::Result<usize> {
    if let Outgoing::Items = message {
        let items = queues.producers.gathered();
        within(timeout, writer.write_serialized(items)).await?;
        return Ok(queues.producers.clear());
    }
    let Some(text) = message.text() else {
        return Ok(0);
    };
    within(timeout, writer.write_message(text)).await?;
    Ok(text.len())
}

/// Replies of requests that finished as they were read, handed from the
/// reader to the writer without a channel (see [`Running::inline`](super::reader::Running::inline)). Each
/// keeps its request's in-flight permit until it is written: the reader
/// reads no more requests than the writer can take, so a peer that does not
/// read its replies stops being read from.
pub(super) struct Finished {
    /// `None` once the writer has stopped.
    replies: Mutex<Option<VecDeque<Reply>>>,
}

/// A reply in [`Finished`], with its request's permit.
pub(super) struct Reply {
    /// `None`: the reader sent it itself, and the flush sends what the
    /// peer did not take yet.
    text: Option<String>,
    /// Released once the reply is written.
    _permit: Permit,
}

impl Finished {
    pub(super) fn new() -> Self {
        Finished {
            replies: Mutex::new(Some(VecDeque::new())),
        }
    }

    fn pop(&self) -> Option<Outgoing> {
        let reply = lock(&self.replies).as_mut()?.pop_front()?;
        Some(Outgoing::Finished(reply))
    }

    /// Drops what is queued and whatever comes later.
    fn close(&self) {
        // Taken out first: the permits are released outside the lock.
        let dropped = lock(&self.replies).take();
        drop(dropped);
    }
}

/// The reader's side of [`Finished`], and of [`DirectReply`].
pub(super) struct Replies<'a, D> {
    pub(super) finished: &'a Finished,
    /// The writer: it runs after the reader in the same pass of the task.
    pub(super) writer: Nudge,
    /// The writer's other queue, checked before a reply is sent directly.
    pub(super) outbox: &'a mpsc::Sender<Outbound>,
    pub(super) direct: D,
}

impl<D: DirectReply> Replies<'_, D> {
    /// Hands `reply` on: sent by the reader itself when the writer has
    /// nothing queued (then it overtakes nothing, and frees its permit once
    /// sent), else queued for the writer with its permit.
    pub(super) fn push(&mut self, cx: &mut std::task::Context<'_>, reply: String, permit: Permit) {
        if D::CAN && self.nothing_queued() {
            match self.direct.try_reply(cx, &reply) {
                #[cfg(feature = "ws")]
                Direct::Sent => return,
                // The writer sends the rest, under its write timeout, and
                // the permit is held until it has.
                #[cfg(feature = "ws")]
                Direct::Unsent => return self.queue(None, permit),
                Direct::Refused => {}
            }
        }
        self.queue(Some(reply), permit);
    }

    /// Queues `text` (see [`Reply`]) for the writer, with its permit.
    fn queue(&self, text: Option<String>, permit: Permit) {
        let reply = Reply {
            text,
            _permit: permit,
        };
        let mut replies = lock(&self.finished.replies);
        match replies.as_mut() {
            Some(queue) => {
                queue.push_back(reply);
                self.writer.nudge();
            }
            // The writer has stopped: the reply is dropped (its permit
            // released outside the lock), as a reply sent into a closed
            // outbox is.
            None => {
                drop(replies);
                drop(reply);
            }
        }
    }

    /// Whether both of the writer's queues are empty. (A message the writer
    /// has taken from them but not sent yet is for
    /// [`DirectReply::try_reply`] to see.)
    fn nothing_queued(&self) -> bool {
        // A full count of free places: nothing sent and not yet received.
        self.outbox.capacity() == self.outbox.max_capacity()
            && lock(&self.finished.replies)
                .as_ref()
                .is_some_and(VecDeque::is_empty)
    }
}

/// Where the writer takes its messages from.
pub(super) struct Queues<'a> {
    /// Messages of any kind: requests and notifications to the peer, replies
    /// of requests that ran as tasks; and subscriptions starting and ending.
    outbox: mpsc::Receiver<Outbound>,
    /// The waker the outbox holds, if it still holds one: it gives it up
    /// (and wakes it) at the next message sent.
    armed: Option<Waker>,
    finished: &'a Finished,
    /// The subscriptions whose items are sent when nothing is queued.
    producers: Producers,
}

/// A message for the writer.
pub(super) enum Outgoing {
    Finished(Reply),
    Queued(String),
    /// The subscriptions' items gathered in the producers' buffer.
    Items,
}

impl Outgoing {
    /// The text of a reply or a queued message; `None` for a reply with
    /// nothing to write, only a flush, and for items (written as bytes).
    fn text(&self) -> Option<&str> {
        match self {
            Outgoing::Finished(reply) => reply.text.as_deref(),
            Outgoing::Queued(text) => Some(text),
            Outgoing::Items => None,
        }
    }
}

impl Queues<'_> {
    /// The next message; `None` once `closing` has fired.
    async fn next<F>(&mut self, closing: &mut Rare<F>) -> Option<Outgoing>
    where
        F: Future<Output = ()>,
    {
        std::future::poll_fn(|cx| {
            loop {
                if let Some(next) = self.ready(cx) {
                    return Poll::Ready(Some(next));
                }
                // Waiting on the outbox costs a lock-free handshake and a
                // waker registration; when the outbox still holds this waker
                // (no message came since), there is nothing to register.
                if self
                    .armed
                    .as_ref()
                    .is_some_and(|armed| armed.will_wake(cx.waker()))
                {
                    break;
                }
                // Out of budget, the outbox returns `Pending` without taking
                // the waker: it is not armed then.
                let registers = tokio::task::coop::has_budget_remaining();
                match self.outbox.poll_recv(cx) {
                    Poll::Ready(Some(outbound)) => {
                        if let Some(message) = self.take(outbound) {
                            return Poll::Ready(Some(Outgoing::Queued(message)));
                        }
                    }
                    _ => {
                        self.armed = registers.then(|| cx.waker().clone());
                        break;
                    }
                }
            }
            Pin::new(&mut *closing).poll(cx).map(|()| None)
        })
        .await
    }

    /// The next message if one is waiting, else the next item of a
    /// subscription if one is ready (`cx` to be woken when one is).
    fn ready(&mut self, cx: &mut std::task::Context<'_>) -> Option<Outgoing> {
        if let Some(next) = self.try_next() {
            return Some(next);
        }
        (self.producers.gather(cx, FLUSH_AT) > 0).then_some(Outgoing::Items)
    }

    /// The next message if one is waiting. The outbox first: what a
    /// handler sent before it returned (a progress notification, a request
    /// to the peer) was queued there before its reply reached `finished`,
    /// and must reach the peer before the reply.
    fn try_next(&mut self) -> Option<Outgoing> {
        // Checked before it is read: an empty outbox is the common case,
        // and `is_empty` is the cheapest way to find it so.
        while !self.outbox.is_empty() {
            // A message was sent: the outbox has woken (and let go of) the
            // waker it held.
            self.armed = None;
            let Ok(outbound) = self.outbox.try_recv() else {
                break;
            };
            if let Some(message) = self.take(outbound) {
                return Some(Outgoing::Queued(message));
            }
        }
        self.finished.pop()
    }

    /// What `outbound` asks for: a message to send, or a subscription
    /// started or stopped here.
    fn take(&mut self, outbound: Outbound) -> Option<String> {
        match outbound {
            Outbound::Message(message) => return Some(message),
            Outbound::Stream(producer) => self.producers.start(*producer),
            Outbound::Stop(subscription) => self.producers.stop(&subscription),
        }
        None
    }
}
