//! This end's subscriptions to its peer: the notifications that carry their
//! items, routed to the streams the callers read.
//!
//! A streaming call makes its stream's queue before it sends its request;
//! the reader, as it reads the answer and before it reads on, opens the
//! route from the subscription id to that queue. The items after the answer
//! so always find their stream, and wait for room in it (the peer is read
//! no further meanwhile). Only items that come *before* the answer are kept
//! aside, boundedly; past the bound the stream says items were lost, then
//! ends, rather than go on with a gap.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::{Connection, Pending, Shared};
use crate::client::{ClientError, RawItems, TransportError, TransportErrorKind};
use crate::transport::sync::lock;
use crate::wire::Notification;
use crate::{ErrorObject, StreamInfo};

/// One item as the transport brings it.
type RawItem = Result<Box<RawValue>, ClientError>;

/// How many items wait for a reader that has not taken them; the peer is
/// read no further until it does.
const QUEUE: usize = 16;

/// Items that came before the answer that names their subscription
/// (a server may send them first), kept for it, up to this many.
const EARLY: usize = 64;

/// For at most this many subscriptions not yet named.
const EARLY_SUBSCRIPTIONS: usize = 16;

/// The subscriptions of this end.
#[derive(Default)]
pub(super) struct Subscribed {
    /// How many streaming calls are open or waiting: while none is, a
    /// notification is not even looked at.
    open: AtomicUsize,
    routes: std::sync::Mutex<Routes>,
}

#[derive(Default)]
struct Routes {
    /// Keyed by notification name and the subscription id's JSON.
    live: HashMap<(String, String), mpsc::Sender<RawItem>>,
    early: HashMap<(String, String), Early>,
}

/// The items of a subscription not yet named by its answer.
#[derive(Default)]
struct Early {
    notes: VecDeque<Note>,
    /// More came than were kept.
    lost: bool,
}

/// A streaming call waiting for its answer: the notification its items
/// come in, and the queue of the stream it will return.
pub(super) struct Opening {
    notification: &'static str,
    sender: mpsc::Sender<RawItem>,
}

/// What the reader needs of an answer to a streaming call: an error, or
/// the subscription id (a `null` one read as `null`, as the caller reads it).
#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<serde::de::IgnoredAny>,
}

/// Opens the route of each streaming call answered in `responses`, before
/// the answer is handed over: the items the peer sends after it are then
/// never early. An error answer just drops the opening.
pub(super) fn open_answered(shared: &Shared, responses: &[(Option<u64>, &RawValue)]) {
    if shared.subscribed.open.load(Ordering::Relaxed) == 0 {
        return;
    }
    for (id, raw) in responses {
        let opening = id.and_then(|id| {
            lock(&shared.pending)
                .get_mut(&id)
                .and_then(|pending: &mut Pending| pending.opening.take())
        });
        let Some(Opening {
            notification,
            sender,
        }) = opening
        else {
            continue;
        };
        if let Ok(Answer {
            result,
            error: None,
        }) = serde_json::from_str(raw.get())
        {
            let subscription = result.map_or("null", RawValue::get);
            let key = (notification.to_owned(), subscription.to_owned());
            lock(&shared.subscribed.routes).live.insert(key, sender);
        }
    }
}

/// A subscription notification's params: `result`, `error` or `end`.
#[derive(Deserialize)]
struct NoteParams<'a> {
    #[serde(borrow)]
    subscription: &'a RawValue,
    result: Option<Box<RawValue>>,
    error: Option<ErrorObject>,
}

/// What one notification says about its subscription.
enum Note {
    Result(Box<RawValue>),
    Error(ErrorObject),
    End,
}

impl NoteParams<'_> {
    fn note(self) -> Note {
        match (self.result, self.error) {
            (Some(result), _) => Note::Result(result),
            (None, Some(error)) => Note::Error(error),
            (None, None) => Note::End,
        }
    }
}

impl Subscribed {
    /// Takes `notification` if it is an item of one of this end's
    /// subscriptions (its params name a `subscription`), and hands it to
    /// its stream (waiting while the stream is full); `false` leaves it to
    /// the router. Only the params are read: the reader has read the rest.
    pub(super) async fn route(&self, notification: &Notification) -> bool {
        if self.open.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let Some(params) = notification.params() else {
            return false;
        };
        let Ok(params) = serde_json::from_str::<NoteParams<'_>>(params.get()) else {
            return false;
        };
        let key = (
            notification.method().to_owned(),
            params.subscription.get().to_owned(),
        );
        let note = params.note();
        let sender = {
            let mut routes = lock(&self.routes);
            match routes.live.get(&key) {
                Some(sender) => sender.clone(),
                None => {
                    keep_early(&mut routes, key, note);
                    return true;
                }
            }
        };
        let delivered = match note {
            Note::Result(item) => sender.send(Ok(item)).await.is_ok(),
            Note::Error(error) => {
                drop(sender.send(Err(crate::client::item_error(error))).await);
                false
            }
            Note::End => false,
        };
        if !delivered {
            // Ended, or its stream dropped before it could unsubscribe.
            self.end(&key.0, &key.1);
        }
        true
    }

    /// Counts a streaming call out; with none left open, the items kept for
    /// subscriptions never named (a peer's stray ones) go too.
    fn close_one(&self) {
        let mut routes = lock(&self.routes);
        if self.open.fetch_sub(1, Ordering::Relaxed) == 1 {
            routes.early.clear();
        }
    }

    fn end(&self, method: &str, subscription: &str) {
        lock(&self.routes)
            .live
            .remove(&(method.to_owned(), subscription.to_owned()));
    }
}

/// Keeps `note`, which came before its subscription's answer, up to
/// [`EARLY`] of them for each of [`EARLY_SUBSCRIPTIONS`] subscriptions.
#[cold]
fn keep_early(routes: &mut Routes, key: (String, String), note: Note) {
    if routes.early.len() >= EARLY_SUBSCRIPTIONS && !routes.early.contains_key(&key) {
        // Unnamed items of yet another subscription: most likely strays
        // of one this end no longer has, else the peer sends many
        // subscriptions' items ahead of their answers.
        tracing::warn!(
            notification = %key.0,
            subscription = %key.1,
            "an item of an unknown subscription was dropped"
        );
        return;
    }
    let early = routes.early.entry(key).or_default();
    match early.notes.len() < EARLY {
        true => early.notes.push_back(note),
        false => early.lost = true,
    }
}

impl Connection {
    /// The client side of a subscription: calls the streaming method, and
    /// routes the notifications named in its answer to the returned stream.
    pub(crate) async fn open_stream(
        &self,
        request: crate::client::OutgoingRequest<'_>,
        info: &'static StreamInfo,
    ) -> Result<RawItems, ClientError> {
        let subscribed = &self.shared.subscribed;
        {
            // Under the lock `close_one` clears the early items in: none
            // kept for this call is cleared.
            let _routes = lock(&subscribed.routes);
            subscribed.open.fetch_add(1, Ordering::Relaxed);
        }
        let opened = OpenGuard(&self.shared);
        let (sender, items) = mpsc::channel(QUEUE);
        let opening = Opening {
            notification: info.notification(),
            sender,
        };
        let reply = self.request(request, Some(opening)).await?;
        let subscription = crate::client::decode_result::<Box<RawValue>>(&reply)?;
        // The reader opened the route as it read the answer; what came
        // before it precedes all that is queued.
        let early = lock(&subscribed.routes)
            .early
            .remove(&(
                info.notification().to_owned(),
                subscription.get().to_owned(),
            ))
            .unwrap_or_default();
        std::mem::forget(opened);
        Ok(Box::pin(Items {
            early: early.notes,
            lost: early.lost,
            ended: false,
            items,
            closed: Box::pin(self.shared.closed.clone().cancelled_owned()),
            _unsubscribe: Unsubscribe {
                connection: self.clone(),
                info,
                subscription,
            },
        }))
    }
}

/// Counts a streaming call out again if it fails before its stream exists.
struct OpenGuard<'a>(&'a Shared);

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        let subscribed = &self.0.subscribed;
        // The route of a call dropped after the reader read its answer but
        // before its stream was made: its queue is closed by now.
        lock(&subscribed.routes)
            .live
            .retain(|_, sender| !sender.is_closed());
        subscribed.close_one();
    }
}

/// The stream a subscription's reader holds.
struct Items {
    /// What came before the answer, taken first.
    early: VecDeque<Note>,
    /// More came before the answer than were kept: said once `early` is
    /// taken, then the stream ends.
    lost: bool,
    ended: bool,
    items: mpsc::Receiver<RawItem>,
    closed: Pin<Box<WaitForCancellationFutureOwned>>,
    // Held for its `Drop`.
    _unsubscribe: Unsubscribe,
}

impl Stream for Items {
    type Item = Result<Box<RawValue>, ClientError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // `Items` holds nothing pinned: the cancellation future is boxed.
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        if let Some(note) = this.early.pop_front() {
            return Poll::Ready(match note {
                Note::Result(item) => Some(Ok(item)),
                Note::Error(error) => {
                    this.end();
                    Some(Err(crate::client::item_error(error)))
                }
                Note::End => {
                    this.end();
                    None
                }
            });
        }
        if this.lost {
            this.end();
            return Poll::Ready(Some(Err(lost())));
        }
        match this.items.poll_recv(cx) {
            Poll::Ready(item) => return Poll::Ready(item),
            Poll::Pending => {}
        }
        match this.closed.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.end();
                Poll::Ready(Some(Err(crate::client::closed())))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Items {
    /// Nothing more is read: its route, if the reader still has it, goes
    /// when it next tries to hand an item over.
    fn end(&mut self) {
        self.ended = true;
        self.early.clear();
        self.items.close();
    }
}

/// The error a stream ends with when items came before its answer past the
/// bound a client keeps.
#[cold]
fn lost() -> ClientError {
    ClientError::Transport(TransportError::with_source(
        TransportErrorKind::Lost,
        format!(
            "more than {EARLY} items came before the subscription's answer; \
             the rest were not kept, so the stream ends here"
        ),
    ))
}

/// Unsubscribes when the reader drops its stream.
struct Unsubscribe {
    connection: Connection,
    info: &'static StreamInfo,
    subscription: Box<RawValue>,
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        let (connection, info) = (self.connection.clone(), self.info);
        let id = self.subscription.get().to_owned();
        connection.shared.subscribed.end(info.notification(), &id);
        connection.shared.subscribed.close_one();
        if connection.is_closed() {
            return;
        }
        let params = crate::client::Params::from_json(format!("[{id}]"));
        let Ok(params) = params else {
            return;
        };
        // Queued here rather than by a task: a connection closed right
        // after the drop still sends it (its writer drains the queue before
        // it closes). Its answer, `true`, is not waited for.
        let (ids, _answer) = connection.expect_replies(1);
        let request = crate::client::OutgoingRequest::new(info.unsubscribe(), Some(&params));
        let text = request.to_text(Some(ids.start));
        if let Err(mpsc::error::TrySendError::Full(text)) =
            connection.shared.outbox.try_send(text.into())
        {
            // A queue full of replies: wait for room, on a task.
            let Ok(handle) = tokio::runtime::Handle::try_current() else {
                return;
            };
            let outbox = connection.shared.outbox.clone();
            handle.spawn(async move {
                let _ = outbox.send(text).await;
            });
        }
    }
}

#[cfg(all(test, feature = "stream"))]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
    use tokio::io::{ReadHalf, WriteHalf};

    use super::*;
    use crate::client::OutgoingRequest;
    use crate::transport::stream::{FramedReader, FramedWriter, Framing};

    static NEW_HEADS: StreamInfo = StreamInfo::new("eth_subscription", "eth_unsubscribe");

    const ITEM: &str =
        r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"a","result":1}}"#;

    /// The client's other end, written by hand.
    type Peer = (
        Lines<BufReader<ReadHalf<DuplexStream>>>,
        WriteHalf<DuplexStream>,
    );

    /// A client whose calls give up after 100 ms, and its raw peer.
    fn connected() -> (Connection, Peer) {
        let (client_end, peer_end) = tokio::io::duplex(1 << 12);
        let (read, write) = tokio::io::split(client_end);
        let connection = Connection::connect(
            FramedReader::new(read, Framing::Lines, 1 << 20),
            FramedWriter::new(write, Framing::Lines),
            crate::Router::builder().build().unwrap(),
        )
        .with_timeout(Duration::from_millis(100));
        let (read, write) = tokio::io::split(peer_end);
        (connection, (BufReader::new(read).lines(), write))
    }

    /// Sends `lines`, then a call the client answers: once its answer is
    /// read, the client has read everything before it.
    async fn send_and_sync(peer: &mut Peer, lines: &[&str]) {
        for line in lines
            .iter()
            .chain([&r#"{"jsonrpc":"2.0","id":"sync","method":"x"}"#])
        {
            peer.1
                .write_all(format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
        while let Some(line) = peer.0.next_line().await.unwrap() {
            if line.contains(r#""id":"sync""#) {
                return;
            }
        }
        panic!("the client hung up");
    }

    /// Subscribes while the peer sends `lines` (the answer among them).
    async fn subscribe(
        connection: &Connection,
        peer: &mut Peer,
        lines: &[&str],
    ) -> Result<RawItems, ClientError> {
        let request = OutgoingRequest::new("eth_subscribe", None);
        let call = connection.open_stream(request, &NEW_HEADS);
        tokio::join!(call, send_and_sync(peer, lines)).0
    }

    /// Streaming calls open, routes, items kept, calls waiting.
    fn held(connection: &Connection) -> (usize, usize, usize, usize) {
        let subscribed = &connection.shared.subscribed;
        let routes = lock(&subscribed.routes);
        let pending = lock(&connection.shared.pending).len();
        let open = subscribed.open.load(Ordering::Relaxed);
        (open, routes.live.len(), routes.early.len(), pending)
    }

    #[tokio::test]
    async fn a_call_given_up_before_its_answer_leaves_nothing_behind() {
        let (connection, mut peer) = connected();
        let err = subscribe(&connection, &mut peer, &[]).await.err();
        assert!(err.is_some_and(|err| err.is_timeout()));
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":"a"}"#;
        send_and_sync(&mut peer, &[answer, ITEM, ITEM]).await;
        assert_eq!(held(&connection), (0, 0, 0, 0));
    }

    #[tokio::test]
    async fn a_call_dropped_after_its_answer_was_read_leaves_nothing_behind() {
        let (connection, mut peer) = connected();
        let request = OutgoingRequest::new("eth_subscribe", None);
        let mut call = Box::pin(connection.open_stream(request, &NEW_HEADS));
        // Polled once: the request is sent, and the call waits for its answer.
        std::future::poll_fn(|cx| {
            assert!(call.as_mut().poll(cx).is_pending());
            Poll::Ready(())
        })
        .await;
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":"a"}"#;
        send_and_sync(&mut peer, &[answer, ITEM]).await;
        assert_eq!(held(&connection).1, 1, "the reader opened the route");
        drop(call);
        send_and_sync(&mut peer, &[ITEM]).await;
        assert_eq!(held(&connection), (0, 0, 0, 0));
    }

    #[tokio::test]
    async fn an_error_answer_leaves_nothing_behind() {
        let (connection, mut peer) = connected();
        let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
        let err = subscribe(&connection, &mut peer, &[ITEM, answer])
            .await
            .err();
        let code = err.and_then(|err| err.rpc_error().map(|error| error.code()));
        assert_eq!(code, Some(-32602));
        send_and_sync(&mut peer, &[ITEM]).await;
        assert_eq!(held(&connection), (0, 0, 0, 0));
    }

    #[tokio::test]
    async fn a_dropped_stream_leaves_nothing_behind() {
        let (connection, mut peer) = connected();
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":"a"}"#;
        let items = subscribe(&connection, &mut peer, &[answer, ITEM]).await;
        assert_eq!(held(&connection), (1, 1, 0, 0));
        drop(items);
        let unsubscribed = r#"{"jsonrpc":"2.0","id":2,"result":true}"#;
        send_and_sync(&mut peer, &[ITEM, unsubscribed]).await;
        assert_eq!(held(&connection), (0, 0, 0, 0));
    }
}
