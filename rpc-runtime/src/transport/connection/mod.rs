//! Two-way connections: one engine for WebSocket, TCP, stdio and child processes.
//!
//! On these transports both ends may send requests at any time. Each side
//! runs the same loop: a reader that hands requests to the router (at most
//! [`Limits::max_in_flight`] at once) and responses to the calls waiting for
//! them, and a writer that sends the replies and whatever else is queued.
//! A request that finishes as it is read hands its reply to the writer
//! directly and keeps its place among the `max_in_flight` until the reply is
//! written (or, on WebSocket, with nothing else unsent, the reader sends it
//! itself: see [`DirectReply`]); a request that has to wait runs as a task
//! and queues its reply in a bounded queue. Either way a peer that stops
//! reading its replies stops being read from: memory stays bounded, and
//! what a handler sent the peer before it returned goes out before its
//! reply.
//!
//! Each message is read once, at the reader, into what it is, and handed on
//! as that. A lone object that can only be for the router (nothing queued,
//! no call of this end waiting, no turns declared) goes straight to it,
//! whose one parse tells a request from a notification and hands a lone
//! notification back read ([`wire::Notification`]: its method and raw
//! params); anything else is sorted first (`wire::classify`: a scan of its
//! member names, a parse only of what is not a request). A notification is
//! then, by its method and params and never its text again, the cancel
//! policy's ([`CancelPolicy::cancelled_by`]), an item of one of this end's
//! subscriptions (`our_subscriptions.rs`, which reads only its params), or
//! the router's to run in the turn its method asks for (`order.rs`), which
//! runs it as read (`router::PeerMessage::Notification`). Responses go to their
//! calls; requests and batches are parsed by the router as they run.
//!
//! [`wire::Notification`]: crate::wire::Notification
//! [`CancelPolicy::cancelled_by`]: crate::CancelPolicy::cancelled_by
//!
//! | file | its job |
//! |---|---|
//! | `mod.rs` | the [`Connection`] handle and the calls waiting for their responses |
//! | `message.rs` | [`MessageReader`] and [`MessageWriter`], what a transport implements |
//! | `open.rs` | a connection's settings, the constructors, the driver of both loops |
//! | `reader.rs` | the read loop: each message read once, requests and notifications to the router, responses to their calls |
//! | `order.rs` | the peer's messages in the order their methods ask for, responses to our calls |
//! | `schedule.rs` | when each message may start: exclusive ones alone, shared ones together |
//! | `backlog.rs` | what is read past, while requests wait for room, to find a response a handler waits for |
//! | `cancel.rs` | the peer's requests in flight, by id for its cancel notifications, by key for superseding |
//! | `writer.rs` | the write loop and its two queues |
//! | `our_subscriptions.rs` | this end's subscriptions to the peer: their items, by id |
//! | `peer_subscriptions.rs` | the peer's subscriptions to this end: ids, limits, subscribe and unsubscribe |
//! | `producers.rs` | the subscriptions' streams, pulled by the writer |
//! | `direct.rs` | the WebSocket server's replies sent by the reader itself |
//! | `lend.rs` | a request's place in flight, lent while its handler waits on the peer |
//! | `peer.rs` | the connection as its handlers' port to the peer, and [`Context::connection`](crate::Context::connection) |
//!
//! [`Limits::max_in_flight`]: super::Limits::max_in_flight

mod backlog;
mod cancel;
mod direct;
mod lend;
mod message;
mod open;
mod order;
mod our_subscriptions;
mod peer;
mod peer_subscriptions;
mod producers;
mod reader;
mod schedule;
mod span;
mod writer;

pub(crate) use direct::{Direct, DirectReply, ViaWriter};
pub use message::{Inbound, MessageReader, MessageWriter, Serialized};
#[cfg(feature = "stream")]
pub(crate) use open::open_client;
pub(crate) use open::{Setup, Timers, open};
pub(crate) use peer_subscriptions::Budget;

use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::CancelPolicy;
use crate::client::{
    Batch, BatchResponse, ClientError, OutgoingRequest, Transport, TransportError,
    TransportErrorKind, closed,
};
use crate::transport::sync::lock;

/// A live two-way connection: send requests and notifications to the peer.
///
/// On the server side, a handler gets it from its
/// [`Context::connection`](crate::Context::connection) to call back into the
/// client; wrap it in a generated client (`FooClient::new(connection.clone())`)
/// for typed calls. On the client side it is what `connect` returns.
/// Clones share the connection; when the last clone a client holds is
/// dropped, the connection closes.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
    /// Present in the handles a client owns: the last one dropped closes the connection.
    _owner: Option<Arc<CloseOnDrop>>,
    timeout: Option<Duration>,
    /// Sent for each call given up on before its reply.
    cancel: Option<Arc<CancelPolicy>>,
}

/// The id of this end's first call to its peer.
const FIRST_ID: u64 = 1;

struct Shared {
    outbox: mpsc::Sender<writer::Outbound>,
    /// This end's calls waiting for their responses, by id.
    pending: Mutex<HashMap<u64, Pending>>,
    /// Notified when a handler starts a call: a read loop that waits for
    /// room for the peer's requests then reads on, for the response.
    handler_called: tokio::sync::Notify,
    next_id: AtomicU64,
    /// Cancelled when the connection is ending: no more calls are accepted.
    closing: CancellationToken,
    /// Cancelled when the peer can no longer be answered (a read or a write
    /// failed, or a WebSocket close frame came): the requests still running
    /// are dropped.
    unreachable: CancellationToken,
    /// Cancelled when the connection has ended.
    closed: CancellationToken,
    /// The peer's subscriptions on this end.
    subscriptions: Mutex<peer_subscriptions::Subscriptions>,
    /// This end's subscriptions to the peer.
    subscribed: our_subscriptions::Subscribed,
    budget: Budget,
}

/// A call waiting for its response.
struct Pending {
    reply: oneshot::Sender<Bytes>,
    /// The connection's owner made it (not a handler): its response waits
    /// until the peer's messages before it have run.
    in_order: bool,
    /// A streaming call's: where its items go once its answer names them.
    opening: Option<our_subscriptions::Opening>,
}

impl Shared {
    /// Whether the call `id` is one the connection's owner made.
    fn is_owners_call(&self, id: Option<u64>) -> bool {
        id.and_then(|id| lock(&self.pending).get(&id).map(|pending| pending.in_order))
            .unwrap_or(false)
    }

    /// Whether a handler waits for a response from the peer.
    fn handler_calls_waiting(&self) -> bool {
        !no_calls_waiting(self)
            && lock(&self.pending)
                .values()
                .any(|pending| !pending.in_order)
    }

    /// Resolves once a handler waits for a response from the peer.
    async fn handler_waits(&self) {
        loop {
            // Made before the check: a call that starts in between still wakes it.
            let called = self.handler_called.notified();
            if self.handler_calls_waiting() {
                return;
            }
            called.await;
        }
    }
}

struct CloseOnDrop(CancellationToken);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.is_closed())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Connection {
    /// A handle whose calls fail with a timeout error when no reply comes
    /// within `timeout`; `None` waits as long as the peer takes. Every
    /// handle starts with [`DEFAULT_CALL_TIMEOUT`](crate::transport::DEFAULT_CALL_TIMEOUT)
    /// (30 s).
    pub fn with_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.timeout = timeout.into();
        self
    }

    /// A handle that sends `policy`'s notification for each call it gives
    /// up on before the reply comes: a call whose future is dropped, or
    /// whose timeout passes. The peer can then drop its handler (see
    /// [`RouterBuilder::cancel_notification`](crate::RouterBuilder::cancel_notification)).
    /// Batches are not cancelled. The notification is queued without
    /// waiting (on a full queue, a task sends it), so a drop never blocks.
    ///
    /// A connection whose own router has a
    /// [`cancel_notification`](crate::RouterBuilder::cancel_notification)
    /// (a server's, or the `handlers` router of a client's connector)
    /// cancels its calls with that policy from the start: both ends of a
    /// connection speak one protocol. `None` turns cancelling off.
    ///
    /// ```
    /// use typed_rpc::CancelPolicy;
    /// use typed_rpc::client::ClientExt;
    /// use typed_rpc::transport::stream::{FramedReader, FramedWriter, Framing};
    /// use typed_rpc::transport::Connection;
    /// use typed_rpc::Router;
    /// use tokio::io::AsyncBufReadExt;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (client_end, server_end) = tokio::io::duplex(4096);
    /// let (read, write) = tokio::io::split(client_end);
    /// let connection = Connection::connect(
    ///     FramedReader::new(read, Framing::Lines, 1 << 20),
    ///     FramedWriter::new(write, Framing::Lines),
    ///     Router::builder().build().unwrap(),
    /// )
    /// .with_cancel_notification(CancelPolicy::lsp())
    /// .with_timeout(std::time::Duration::from_millis(10));
    ///
    /// // A peer that never answers: the call times out, and is cancelled.
    /// assert!(connection.call::<u64>("slow", None).await.unwrap_err().is_timeout());
    /// let mut peer = tokio::io::BufReader::new(server_end).lines();
    /// assert_eq!(peer.next_line().await.unwrap().unwrap(), r#"{"jsonrpc":"2.0","id":1,"method":"slow"}"#);
    /// assert_eq!(
    ///     peer.next_line().await.unwrap().unwrap(),
    ///     r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#
    /// );
    /// # });
    /// ```
    pub fn with_cancel_notification(mut self, policy: impl Into<Option<CancelPolicy>>) -> Self {
        self.cancel = policy.into().map(Arc::new);
        self
    }

    /// How long a call on this handle waits for its reply, if it is bounded.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Starts closing the connection: replies to requests in flight are still
    /// sent, then it closes.
    pub fn close(&self) {
        self.shared.closing.cancel();
    }

    /// Whether the connection is closing or closed.
    pub fn is_closed(&self) -> bool {
        self.shared.closing.is_cancelled()
    }

    /// Resolves once the connection has ended.
    pub async fn closed(&self) {
        self.shared.closed.cancelled().await;
    }

    pub(crate) async fn enqueue(&self, message: String) -> Result<(), ClientError> {
        if self.is_closed() {
            return Err(closed());
        }
        self.shared
            .outbox
            .send(message.into())
            .await
            .map_err(|_| closed())
    }
}

impl Transport for Connection {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        self.request(request, None).await
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        self.enqueue(notification.to_text(None)).await
    }

    async fn send_batch(&self, batch: &Batch) -> Result<BatchResponse, ClientError> {
        let (ids, replies) = self.expect_replies(batch.request_count());
        let _forget = ForgetOnDrop {
            shared: &self.shared,
            ids: ids.clone(),
            cancel: None,
        };
        self.enqueue(batch.to_text(ids.start)).await?;
        let all = async {
            let mut texts = Vec::with_capacity(replies.len());
            for reply in replies {
                texts.push(reply.await.ok().and_then(into_text));
            }
            texts
        };
        let waiting = self.within_timeout(all);
        let replies = lend::lent_while(&self.shared.outbox, waiting).await?;
        Ok(BatchResponse::from_replies(replies))
    }

    async fn send_stream(
        &self,
        request: OutgoingRequest<'_>,
        stream: &'static crate::StreamInfo,
    ) -> Result<crate::client::RawItems, ClientError> {
        self.open_stream(request, stream).await
    }
}

impl Connection {
    /// Sends `request` and waits for its reply; a streaming call's `opening`
    /// waits with it, for the reader to open its route on the answer.
    async fn request(
        &self,
        request: OutgoingRequest<'_>,
        opening: Option<our_subscriptions::Opening>,
    ) -> Result<String, ClientError> {
        let (ids, mut replies) = self.expect_replies(1);
        if let Some(opening) = opening
            && let Some(pending) = lock(&self.shared.pending).get_mut(&ids.start)
        {
            pending.opening = Some(opening);
        }
        // Forget the call however this future ends: reply, error, timeout
        // or drop; once it is sent, cancel it if no reply came.
        let mut forget = ForgetOnDrop {
            shared: &self.shared,
            ids: ids.clone(),
            cancel: None,
        };
        self.enqueue(request.to_text(Some(ids.start))).await?;
        forget.cancel = self.cancel.as_deref();
        let waiting = self.within_timeout(replies.remove(0));
        let reply = lend::lent_while(&self.shared.outbox, waiting).await?;
        let reply = reply.map_err(|_| closed())?;
        into_text(reply).ok_or_else(closed)
    }

    /// Allocates `count` ids and registers a waiting reply for each.
    fn expect_replies(&self, count: usize) -> (Range<u64>, Vec<oneshot::Receiver<Bytes>>) {
        let first = self
            .shared
            .next_id
            .fetch_add(count as u64, Ordering::Relaxed);
        let ids = first..first + count as u64;
        // The owner's handles are the ones that close the connection.
        let in_order = self._owner.is_some();
        let mut pending = lock(&self.shared.pending);
        let replies = ids
            .clone()
            .map(|id| {
                let (reply, reply_rx) = oneshot::channel();
                pending.insert(
                    id,
                    Pending {
                        reply,
                        in_order,
                        opening: None,
                    },
                );
                reply_rx
            })
            .collect();
        drop(pending);
        if !in_order {
            self.shared.handler_called.notify_waiters();
        }
        (ids, replies)
    }

    async fn within_timeout<T>(&self, waiting: impl Future<Output = T>) -> Result<T, ClientError> {
        match self.timeout {
            Some(timeout) => tokio::time::timeout(timeout, waiting).await.map_err(|_| {
                ClientError::Transport(TransportError::new(TransportErrorKind::Timeout))
            }),
            None => Ok(waiting.await),
        }
    }
}

fn into_text(reply: Bytes) -> Option<String> {
    String::from_utf8(reply.into()).ok()
}

/// Forgets calls however they end; with `cancel`, sends its notification
/// for each call that had no reply yet.
struct ForgetOnDrop<'a> {
    shared: &'a Shared,
    ids: Range<u64>,
    cancel: Option<&'a CancelPolicy>,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        let mut pending = lock(&self.shared.pending);
        let unanswered: Vec<u64> = self
            .ids
            .clone()
            .filter(|id| pending.remove(id).is_some())
            .collect();
        drop(pending);
        if let Some(policy) = self.cancel
            && !self.shared.closing.is_cancelled()
        {
            for id in unanswered {
                send_soon(&self.shared.outbox, policy.notification(id));
            }
        }
    }
}

/// Queues `message` without waiting: at once if the queue has room, else
/// from a task (a drop must not block, nor lose the message to a full queue).
#[cold]
fn send_soon(outbox: &mpsc::Sender<writer::Outbound>, message: String) {
    match outbox.try_send(message.into()) {
        Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
        Err(mpsc::error::TrySendError::Full(message)) => {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let outbox = outbox.clone();
                runtime.spawn(async move { outbox.send(message).await });
            }
        }
    }
}

/// Whether no call of this end waits for a response. A server that never
/// calls its client (the common case) has handed out no id: it need not
/// lock the map to know.
#[inline]
fn no_calls_waiting(shared: &Shared) -> bool {
    shared.next_id.load(Ordering::Relaxed) == FIRST_ID || lock(&shared.pending).is_empty()
}

/// Hands each response to the call waiting for its id, the whole `message`
/// without a copy when it is nothing but that one response.
fn deliver(
    shared: &Shared,
    message: &Bytes,
    responses: Vec<(Option<u64>, &serde_json::value::RawValue)>,
) {
    // Not a batch of one, `[response]`: the call wants the response alone.
    let single = matches!(responses.as_slice(), [(_, raw)] if raw.get().len() == message.len());
    for (id, raw) in responses {
        let waiting = id.and_then(|id| lock(&shared.pending).remove(&id));
        match waiting.map(|pending| pending.reply) {
            // A lone response is the whole message: hand it over without a copy.
            Some(reply) if single => drop(reply.send(message.clone())),
            Some(reply) => drop(reply.send(Bytes::copy_from_slice(raw.get().as_bytes()))),
            None => tracing::debug!(?id, "a response that no call is waiting for was dropped"),
        }
    }
}
