//! This end's subscriptions to its peer: the notifications that carry their
//! items, routed to the streams the callers read.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures_core::Stream;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::{Connection, Shared};
use crate::client::{ClientError, RawItems};
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
    early: HashMap<(String, String), VecDeque<Note>>,
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
                    if routes.early.len() < EARLY_SUBSCRIPTIONS || routes.early.contains_key(&key) {
                        let early = routes.early.entry(key).or_default();
                        if early.len() < EARLY {
                            early.push_back(note);
                        }
                    }
                    return true;
                }
            }
        };
        match note {
            Note::Result(item) => drop(sender.send(Ok(item)).await),
            Note::Error(error) => {
                drop(sender.send(Err(crate::client::item_error(error))).await);
                self.end(&key.0, &key.1);
            }
            Note::End => self.end(&key.0, &key.1),
        }
        true
    }

    fn end(&self, method: &str, subscription: &str) {
        lock(&self.routes)
            .live
            .remove(&(method.to_owned(), subscription.to_owned()));
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
        subscribed.open.fetch_add(1, Ordering::Relaxed);
        let opened = OpenGuard(&self.shared);
        let reply = crate::client::Transport::send_request(self, request).await?;
        let subscription = crate::client::decode_result::<Box<RawValue>>(&reply)?;
        let id = subscription.get().to_owned();
        let (sender, items) = mpsc::channel(QUEUE);
        let early = {
            let mut routes = lock(&subscribed.routes);
            routes
                .live
                .insert((info.notification().to_owned(), id.clone()), sender);
            routes
                .early
                .remove(&(info.notification().to_owned(), id.clone()))
                .unwrap_or_default()
        };
        std::mem::forget(opened);
        Ok(Box::pin(Items {
            early,
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
        self.0.subscribed.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The stream a subscription's reader holds.
struct Items {
    early: VecDeque<Note>,
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
        if let Some(note) = this.early.pop_front() {
            return Poll::Ready(match note {
                Note::Result(item) => Some(Ok(item)),
                Note::Error(error) => {
                    this.early.clear();
                    this.items.close();
                    Some(Err(crate::client::item_error(error)))
                }
                Note::End => {
                    this.items.close();
                    None
                }
            });
        }
        match this.items.poll_recv(cx) {
            Poll::Ready(item) => return Poll::Ready(item),
            Poll::Pending => {}
        }
        match this.closed.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.items.close();
                Poll::Ready(Some(Err(crate::client::closed())))
            }
            Poll::Pending => Poll::Pending,
        }
    }
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
        connection
            .shared
            .subscribed
            .open
            .fetch_sub(1, Ordering::Relaxed);
        let id = self.subscription.get().to_owned();
        connection.shared.subscribed.end(info.notification(), &id);
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
