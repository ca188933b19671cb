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
//! [`Limits::max_in_flight`]: super::Limits::max_in_flight

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::ops::Range;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use tokio::runtime::RuntimeFlavor;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;

use super::server::Lifecycle;
use super::sync::in_flight::{InFlight, Slot};
use super::sync::rare_events::{self, Event, Nudge, Raced, Rare};
use super::sync::{in_order, lock};
use super::{Limits, Server, ServerHandle};
use crate::client::{
    Batch, BatchResponse, ClientError, OutgoingRequest, Transport, TransportError,
    TransportErrorKind,
};
use crate::router::FromPeer;
use crate::wire::{self, Incoming};
use crate::{Context, ErrorObject, Router};

/// The reading half of a message transport: yields whole messages.
///
/// Implemented by the framings of byte streams and by WebSocket; implement
/// it to run JSON-RPC over any other message channel.
pub trait MessageReader: Send + 'static {
    /// Reads the next message.
    fn read_message(&mut self) -> impl Future<Output = io::Result<Inbound>> + Send;
}

/// What a [`MessageReader`] read.
#[derive(Debug)]
pub enum Inbound {
    /// A whole message.
    Message(Bytes),
    /// A message over the size limit, skipped without being buffered; the
    /// connection goes on.
    TooLarge,
    /// The peer closed its end.
    Closed,
}

/// The writing half of a message transport.
pub trait MessageWriter: Send + 'static {
    /// Queues one message; it goes out at the next [`flush`](MessageWriter::flush) at the latest.
    fn write_message(&mut self, message: &str) -> impl Future<Output = io::Result<()>> + Send;

    /// Sends everything queued.
    fn flush(&mut self) -> impl Future<Output = io::Result<()>> + Send;

    /// Ends the connection cleanly (a WebSocket close frame, a stream shutdown).
    fn close(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}

/// A reader's way to send a reply itself, ahead of the writer, when nothing
/// is waiting to be written: a request that finishes as it is read then
/// costs no hand-over to the writer and no pass of the writer's loop. Only
/// the WebSocket server's socket, whose reader and writer share one output
/// buffer, can; every other transport leaves all replies to the writer.
pub(crate) trait DirectReply: Send + 'static {
    /// Whether [`try_reply`](DirectReply::try_reply) can ever take a reply.
    const CAN: bool = true;

    /// Sends `reply`, or leaves it to the writer. Called only when the
    /// writer's queues are empty; it must refuse while the writer has any
    /// message of its own unsent, so that the reply overtakes nothing.
    fn try_reply(&mut self, cx: &mut std::task::Context<'_>, reply: &str) -> Direct;
}

/// What became of a reply offered to [`DirectReply::try_reply`].
pub(crate) enum Direct {
    /// Sent whole (or failed: the failure shows at the next read or write).
    Sent,
    /// Taken, but the peer has not taken all of it yet: the writer's next
    /// flush sends the rest, under the write timeout.
    Unsent,
    /// Left to the writer.
    Refused,
}

/// Every reply goes through the writer.
pub(crate) struct ViaWriter;

impl DirectReply for ViaWriter {
    const CAN: bool = false;

    fn try_reply(&mut self, _: &mut std::task::Context<'_>, _: &str) -> Direct {
        Direct::Refused
    }
}

/// The timers of a server-side connection (see [`Setup`]); none for a
/// connection to a parent process over its pipes.
#[derive(Clone, Copy, Default)]
pub(crate) struct Timers {
    pub(crate) idle: Option<Duration>,
    pub(crate) write: Option<Duration>,
    pub(crate) linger: Option<Duration>,
}

/// How one end of a connection behaves.
pub(crate) struct Setup {
    /// Serves the peer's requests (an empty router answers `-32601` to all).
    pub(crate) router: Router,
    /// What handlers learn about the peer; the connection handle is added.
    pub(crate) context: Context,
    /// The most requests from the peer running at once.
    pub(crate) max_in_flight: usize,
    /// Close after this long without a message while nothing is in flight.
    pub(crate) idle_timeout: Option<Duration>,
    /// Close when one write waits this long for the peer to read.
    pub(crate) write_timeout: Option<Duration>,
    /// Stop reading new requests and wind down (graceful shutdown).
    pub(crate) stopping: CancellationToken,
    /// When this end closes first, how long to go on reading (and
    /// discarding) until the peer closes too. On TCP, closing a socket with
    /// unread input resets the connection, and the reset throws away the
    /// replies still waiting in the send buffer for a peer that reads
    /// slowly: lingering lets them arrive, and the peer's close says they did.
    pub(crate) linger: Option<Duration>,
}

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
}

/// The id of this end's first call to its peer.
const FIRST_ID: u64 = 1;

struct Shared {
    outbox: mpsc::Sender<String>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Bytes>>>,
    next_id: AtomicU64,
    /// Cancelled when the connection is ending: no more calls are accepted.
    closing: CancellationToken,
    /// Cancelled when the connection has ended.
    closed: CancellationToken,
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
    /// within `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
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

    async fn enqueue(&self, message: String) -> Result<(), ClientError> {
        if self.is_closed() {
            return Err(connection_closed());
        }
        self.shared
            .outbox
            .send(message)
            .await
            .map_err(|_| connection_closed())
    }
}

impl Transport for Connection {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        let (ids, mut replies) = self.expect_replies(1);
        // Forget the call however this future ends: reply, error, timeout or drop.
        let _forget = ForgetOnDrop {
            shared: &self.shared,
            ids: ids.clone(),
        };
        self.enqueue(request.to_text(Some(ids.start))).await?;
        let reply = self.within_timeout(replies.remove(0)).await?;
        let reply = reply.map_err(|_| connection_closed())?;
        into_text(reply).ok_or_else(connection_closed)
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
        };
        self.enqueue(batch.to_text(ids.start)).await?;
        let all = async {
            let mut texts = Vec::with_capacity(replies.len());
            for reply in replies {
                texts.push(reply.await.ok().and_then(into_text));
            }
            texts
        };
        Ok(BatchResponse::from_replies(self.within_timeout(all).await?))
    }
}

impl Connection {
    /// Allocates `count` ids and registers a waiting reply for each.
    fn expect_replies(&self, count: usize) -> (Range<u64>, Vec<oneshot::Receiver<Bytes>>) {
        let first = self
            .shared
            .next_id
            .fetch_add(count as u64, Ordering::Relaxed);
        let ids = first..first + count as u64;
        let mut pending = lock(&self.shared.pending);
        let replies = ids
            .clone()
            .map(|id| {
                let (reply_tx, reply_rx) = oneshot::channel();
                pending.insert(id, reply_tx);
                reply_rx
            })
            .collect();
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

struct ForgetOnDrop<'a> {
    shared: &'a Shared,
    ids: Range<u64>,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        let mut pending = lock(&self.shared.pending);
        for id in self.ids.clone() {
            pending.remove(&id);
        }
    }
}

fn connection_closed() -> ClientError {
    ClientError::Transport(TransportError::new(TransportErrorKind::Closed))
}

impl Server {
    /// Serves one connection over any message transport: a [`MessageReader`]
    /// and a [`MessageWriter`] of whole messages (the byte-stream framings
    /// and WebSocket are two such; an in-memory channel or a message queue
    /// can be another). It stops when the reader reports
    /// [`Inbound::Closed`], or at [`ServerHandle::shutdown`].
    ///
    /// Must be called within a tokio runtime, which drives the connection.
    ///
    /// ```
    /// use rpc_runtime::transport::stream::{FramedReader, FramedWriter, Framing};
    /// use rpc_runtime::transport::Server;
    /// use rpc_runtime::{Context, TransportKind};
    /// # use rpc_runtime::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (ours, theirs) = tokio::io::duplex(4096);
    /// let (read, write) = tokio::io::split(ours);
    /// let server = Server::new(Router::new(Nothing));
    /// let handle = server.serve_messages(
    ///     FramedReader::new(read, Framing::Lines, 1 << 20),
    ///     FramedWriter::new(write, Framing::Lines),
    ///     Context::new(TransportKind::Stream),
    /// );
    /// drop(theirs); // the peer hangs up: the server stops
    /// handle.stopped().await;
    /// # });
    /// ```
    pub fn serve_messages<R, W>(&self, reader: R, writer: W, context: Context) -> ServerHandle
    where
        R: MessageReader,
        W: MessageWriter,
    {
        let lifecycle = Lifecycle::default();
        lifecycle.spawn(self.drive(reader, writer, context, &lifecycle, Timers::default()));
        // The one connection is the whole server: it has stopped when it ends.
        lifecycle.tasks.close();
        ServerHandle::new(None, lifecycle, self.limits.shutdown_wait())
    }

    /// The driver of one server-side connection, to be spawned, with its
    /// `timers`.
    pub(crate) fn drive<R, W>(
        &self,
        reader: R,
        writer: W,
        context: Context,
        lifecycle: &Lifecycle,
        timers: Timers,
    ) -> impl Future<Output = ()> + Send + use<R, W>
    where
        R: MessageReader,
        W: MessageWriter,
    {
        let setup = Setup {
            router: self.router.clone(),
            context,
            max_in_flight: self.limits.in_flight(),
            idle_timeout: timers.idle,
            write_timeout: timers.write,
            stopping: lifecycle.stopping.clone(),
            linger: timers.linger,
        };
        open(reader, writer, ViaWriter, setup, false).1
    }
}

impl Connection {
    /// Opens a client connection over any message transport (see
    /// [`Server::serve_messages`]); `handlers` serve the requests and
    /// notifications the peer sends. The connection closes when its last
    /// clone is dropped. Must be called within a tokio runtime.
    ///
    /// ```
    /// use rpc_runtime::client::ClientExt;
    /// use rpc_runtime::transport::stream::{FramedReader, FramedWriter, Framing};
    /// use rpc_runtime::transport::{Connection, Server};
    /// use rpc_runtime::{Context, TransportKind};
    /// # use rpc_runtime::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
    /// # struct Nothing;
    /// # static INFO: ServiceInfo = ServiceInfo::new("Nothing", &[]);
    /// # impl RpcService for Nothing {
    /// #     fn info(&self) -> &'static ServiceInfo { &INFO }
    /// #     fn call<'a>(&'a self, _: &str, _: Call<'a>) -> Option<HandlerFuture<'a>> { None }
    /// # }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (client_end, server_end) = tokio::io::duplex(4096);
    /// let (read, write) = tokio::io::split(server_end);
    /// let framed = |read, write| (FramedReader::new(read, Framing::Lines, 1 << 20), FramedWriter::new(write, Framing::Lines));
    /// let (reader, writer) = framed(read, write);
    /// let _server = Server::new(Router::new(Nothing)).serve_messages(reader, writer, Context::new(TransportKind::Stream));
    ///
    /// let (read, write) = tokio::io::split(client_end);
    /// let (reader, writer) = framed(read, write);
    /// let connection = Connection::connect(reader, writer, Router::builder().build().unwrap());
    /// let err = connection.call::<u64>("nope", None).await.unwrap_err();
    /// assert_eq!(err.rpc_error().unwrap().code(), -32601);
    /// # });
    /// ```
    pub fn connect<R, W>(reader: R, writer: W, handlers: Router) -> Connection
    where
        R: MessageReader,
        W: MessageWriter,
    {
        let context = Context::new(crate::TransportKind::Stream);
        open_client(
            reader,
            writer,
            handlers,
            context,
            Limits::default().in_flight(),
        )
    }
}

/// Opens a client connection and spawns its driver.
pub(crate) fn open_client<R, W>(
    reader: R,
    writer: W,
    handlers: Router,
    context: Context,
    max_in_flight: usize,
) -> Connection
where
    R: MessageReader,
    W: MessageWriter,
{
    let setup = Setup {
        router: handlers,
        context,
        max_in_flight,
        idle_timeout: None,
        write_timeout: None,
        stopping: CancellationToken::new(),
        linger: None,
    };
    let (connection, driver) = open(reader, writer, ViaWriter, setup, true);
    tokio::spawn(driver);
    connection
}

/// Opens a connection over `reader` and `writer` (and `direct`, the
/// reader's way to send replies itself): returns its handle and the future
/// that drives it, to be spawned. `owned` makes the returned handle close
/// the connection when its last clone is dropped (for clients).
pub(crate) fn open<R, W, D>(
    reader: R,
    writer: W,
    direct: D,
    setup: Setup,
    owned: bool,
) -> (Connection, impl Future<Output = ()> + Send)
where
    R: MessageReader,
    W: MessageWriter,
    D: DirectReply,
{
    let (outbox, outbox_rx) = mpsc::channel(setup.max_in_flight);
    let shared = Arc::new(Shared {
        outbox,
        pending: Mutex::new(HashMap::new()),
        next_id: AtomicU64::new(FIRST_ID),
        closing: CancellationToken::new(),
        closed: CancellationToken::new(),
    });
    let handler_side = Connection {
        shared: shared.clone(),
        _owner: None,
        timeout: None,
    };
    let owner = owned.then(|| Arc::new(CloseOnDrop(shared.closing.clone())));
    let handle = Connection {
        shared: shared.clone(),
        _owner: owner,
        timeout: None,
    };
    let context = Arc::new(setup.context.clone().with_connection(handler_side));
    let driver = async move {
        let mut reader = reader;
        let finished = Finished::new();
        // Each side is polled only when it was woken: a reply queued for the
        // writer must not make the reader try another read (a read is not
        // free: under the WebSocket client, tungstenite fills its buffer).
        // The writer is polled after the reader in every pass, so a reply
        // the reader hands it directly is written in the same pass, without
        // waking the task again.
        let writing = Rare::new(write_loop(
            writer,
            outbox_rx,
            &finished,
            &shared,
            setup.write_timeout,
        ));
        let replies = Replies {
            finished: &finished,
            writer: writing.nudge(),
            outbox: &shared.outbox,
            direct,
        };
        let reading = Rare::new(read_loop(&mut reader, &shared, &setup, context, replies));
        let (cut_short, closed_cleanly) = in_order(reading, writing).await;
        lock(&shared.pending).clear();
        shared.closed.cancel();
        // This end stopped reading while the peer may still be sending, and
        // has sent its last reply and its close: read on (and discard) until
        // the peer closes too, so that unread input does not reset the
        // connection under the replies still on their way.
        if let Some(linger) = setup.linger
            && cut_short
            && closed_cleanly
        {
            let discard = async {
                while let Ok(Inbound::Message(_) | Inbound::TooLarge) = reader.read_message().await
                {
                }
            };
            let _ = tokio::time::timeout(linger, discard).await;
        }
    };
    (handle, driver)
}

/// Serves the peer's messages until it closes the connection, the read
/// fails, the connection has been idle too long, or this end stops reading
/// (a shutdown, or the connection closing). Returns `true` in the last case,
/// where the peer may still be sending.
async fn read_loop<R: MessageReader, D: DirectReply>(
    reader: &mut R,
    shared: &Arc<Shared>,
    setup: &Setup,
    context: Arc<Context>,
    mut replies: Replies<'_, D>,
) -> bool {
    let mut cut_short = true;
    let in_flight = InFlight::new(setup.max_in_flight);
    // The requests running. They belong to the connection: if it is dropped
    // before they finish (a shutdown past its deadline), so are they.
    let mut requests = JoinSet::new();
    let inline = matches!(
        tokio::runtime::Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    let mut order = Order::default();
    // Made once and polled only when they fire: a message costs no timer
    // and no cancellation check (see `Rare`). One `Rare` waits for all that
    // interrupts the reading: the connection closing or the server stopping
    // (first), and the idle timeout (second, each time it passes), which
    // every message pushes back by setting `active`.
    let (closing, stopping) = (shared.closing.clone(), setup.stopping.clone());
    let active = AtomicBool::new(false);
    let mut interrupts = Rare::new(rare_events::either(
        async move {
            tokio::select! {
                () = closing.cancelled() => {}
                () = stopping.cancelled() => {}
            }
        },
        rare_events::quiet(setup.idle_timeout.unwrap_or(NO_IDLE_TIMEOUT), || {
            active.swap(false, Ordering::Relaxed)
        }),
    ));
    'reading: loop {
        let read = match interrupts.race(pin!(reader.read_message())).await {
            Raced::Done(read) => Some(read),
            Raced::Interrupted(Event::First) => break,
            Raced::Interrupted(Event::Second) => None,
        };
        let message = match read {
            Some(Ok(Inbound::Message(message))) => message,
            Some(Ok(Inbound::TooLarge)) => {
                active.store(true, Ordering::Relaxed);
                let _ = shared.outbox.send(too_large()).await;
                continue;
            }
            // Idle: close only if nothing is going on, else wait a whole
            // timeout again.
            None if idle(&in_flight, shared) && order.is_settled() => {
                cut_short = false;
                break;
            }
            None => continue,
            Some(Ok(Inbound::Closed)) => {
                cut_short = false;
                break;
            }
            Some(Err(err)) => {
                tracing::debug!(%err, "connection read failed");
                cut_short = false;
                break;
            }
        };
        active.store(true, Ordering::Relaxed);
        // A lone object that could only be for the router or dropped (no
        // call of ours waits for a response, nothing is queued before it,
        // a slot is free) goes straight to the router, which tells a
        // notification or a response from a request as it parses: nearly
        // every message a server gets. The rest are sorted first.
        let direct = inline
            && order.is_settled()
            && in_flight.has_free()
            && wire::is_object(&message)
            && no_calls_waiting(shared);
        let request = if direct {
            message
        } else {
            match wire::classify(&message) {
                Incoming::Notification => {
                    if !order.queue(message, setup, &context, shared).await {
                        break;
                    }
                    continue;
                }
                Incoming::ForRouter => message,
                Incoming::Responses(responses) => {
                    order.deliver(shared, &message, responses);
                    continue;
                }
                Incoming::Mixed {
                    responses,
                    requests,
                } => {
                    // The responses go to their calls; the rest, still a batch,
                    // to the router.
                    let requests = Bytes::from(batch_of(&requests));
                    order.deliver(shared, &message, responses);
                    requests
                }
            }
        };
        // A slot is nearly always free: waiting for one is the slow path.
        let slot = match in_flight.try_take() {
            Some(slot) => slot,
            // Requests are in flight: the idle timeout does not apply.
            None => loop {
                tokio::select! {
                    biased;
                    event = &mut interrupts => if let Event::First = event {
                        break 'reading;
                    },
                    slot = in_flight.take() => break slot,
                }
            },
        };
        let (settled, outbox) = (order.settled(), &shared.outbox);
        if inline {
            // In a box, where it can be polled and still move to a task;
            // boxed before the read loop awaits anything, so the
            // connection's own future holds a pointer to the call across
            // its awaits, not the call itself. The box is allocated before
            // the call is made, so that the call is made in it: moved as a
            // value, all of its 848 bytes (mostly room for the states it
            // has not reached) were copied on the way, three times.
            let call = Box::write(Box::new_uninit(), serve(settled, setup, &context, request));
            let call = Box::into_pin(call);
            // Polled once with the task's context, in place: no future of
            // its own for the first poll (see `Running::inline`).
            let mut running = Some(Running { call, slot, outbox });
            let unserved = std::future::poll_fn(|cx| {
                let running = running.take().expect("polled once: it is ready at once");
                Poll::Ready(running.inline(cx, &mut replies, &mut requests))
            });
            match unserved.await {
                Some(Served::Notification(message)) => {
                    if !order.queue(message, setup, &context, shared).await {
                        break;
                    }
                }
                Some(Served::Response(message)) => {
                    if let Incoming::Responses(responses) = wire::classify(&message) {
                        order.deliver(shared, &message, responses);
                    }
                }
                Some(Served::Reply(_)) | None => {}
            }
        } else {
            let call = serve(settled, setup, &context, request);
            Running { call, slot, outbox }.spawn(&mut requests);
        }
        // Forget the ones that have finished.
        while !requests.is_empty() && requests.try_join_next().is_some() {}
    }
    // Let the notifications and requests in flight finish and queue their
    // replies, then close.
    order.finish().await;
    in_flight.all_back().await;
    shared.closing.cancel();
    cut_short
}

/// What serving a message came to.
enum Served {
    /// The router's reply, if any.
    Reply(Option<String>),
    /// A lone notification, not run: it goes to the notifications' queue.
    Notification(Bytes),
    /// A lone response, for the call it answers.
    Response(Bytes),
}

/// Serves `request` once the notifications before it have run (`settled`).
fn serve(
    settled: impl Future<Output = ()> + Send + 'static,
    setup: &Setup,
    context: &Arc<Context>,
    request: Bytes,
) -> impl Future<Output = Served> + Send + 'static {
    let (router, context) = (setup.router.clone(), context.clone());
    async move {
        settled.await;
        match router.handle_from_peer(&request, &context).await {
            FromPeer::Reply(reply) => Served::Reply(reply),
            FromPeer::Notification => Served::Notification(request),
            FromPeer::Response => Served::Response(request),
        }
    }
}

/// A request's call, about to start, with the in-flight slot it holds
/// until its reply is handed to the writer.
struct Running<'a, F> {
    call: F,
    slot: Slot,
    outbox: &'a mpsc::Sender<String>,
}

impl<F> Running<'_, Pin<Box<F>>>
where
    F: Future<Output = Served> + Send + 'static,
{
    /// Polls the call right here first (on a current-thread runtime): most
    /// calls finish without waiting, and their replies go straight to the
    /// writer; a task of their own would add a spawn, a trip through the
    /// scheduler and a trip through the outbox. A call that waits becomes a
    /// task of the connection. Returns a notification or a response the
    /// router left to the connection (they never wait). A plain function
    /// with the task's context rather than an `async fn`: no state machine
    /// of its own in the read loop's future (measured: 69 instructions and
    /// 20 instruction-cache misses per WebSocket message fewer).
    fn inline<D: DirectReply>(
        self,
        cx: &mut std::task::Context<'_>,
        replies: &mut Replies<'_, D>,
        requests: &mut JoinSet<()>,
    ) -> Option<Served> {
        let mut call = self.call;
        match call.as_mut().poll(cx) {
            Poll::Ready(Served::Reply(Some(reply))) => replies.push(cx, reply, self.slot),
            Poll::Ready(Served::Reply(None)) => {}
            Poll::Ready(unserved) => return Some(unserved),
            Poll::Pending => Running { call, ..self }.spawn(requests),
        }
        None
    }
}

impl<'a, F> Running<'a, F>
where
    F: Future<Output = Served> + Send + 'static,
{
    /// Runs the call as a task of the connection (on a multi-threaded
    /// runtime, it can run on another worker while this one reads on); its
    /// reply goes through the outbox.
    fn spawn(self, requests: &mut JoinSet<()>) {
        let Running { call, slot, outbox } = self;
        let outbox = outbox.clone();
        requests.spawn(async move {
            // Only a request's reply: a lone notification or response goes
            // through `inline`, or is sorted out before the router.
            if let Served::Reply(Some(reply)) = call.await {
                let _ = outbox.send(reply).await;
            }
            drop(slot);
        });
    }
}

/// Keeps the peer's notifications in order: they run one after another, and
/// whatever arrives after a notification (a request, a response to one of
/// our calls) waits until it has run. An LSP server sees `didChange` before
/// the `hover` that follows it; an MCP client sees every progress
/// notification before the result. Requests still run concurrently with one
/// another.
#[derive(Default)]
struct Order {
    /// Runs the notifications; started at the first one, as most
    /// connections never get one (a task and a queue saved per connection).
    runner: Option<Runner>,
    /// How many notifications have been queued.
    received: u64,
}

/// The task that runs a connection's notifications, one after another.
struct Runner {
    queue: mpsc::Sender<(u64, Bytes)>,
    /// How many have run.
    done: watch::Receiver<u64>,
    /// Dropping it aborts the task.
    task: AbortOnDropHandle<()>,
}

impl Order {
    /// The runner, started now if it has not been.
    fn runner(&mut self, setup: &Setup, context: &Arc<Context>, shared: &Shared) -> &mut Runner {
        self.runner.get_or_insert_with(|| {
            let (queue, mut queued) = mpsc::channel::<(u64, Bytes)>(setup.max_in_flight);
            let (done_tx, done) = watch::channel(0);
            let (router, context, outbox) =
                (setup.router.clone(), context.clone(), shared.outbox.clone());
            let task = AbortOnDropHandle::new(tokio::spawn(async move {
                while let Some((number, message)) = queued.recv().await {
                    // An invalid notification is answered, as the protocol says.
                    if let Some(reply) = router.handle_with(&message, &context).await {
                        let _ = outbox.send(reply).await;
                    }
                    done_tx.send_replace(number);
                }
            }));
            Runner { queue, done, task }
        })
    }

    /// Lets the notifications queued so far run, and waits for them.
    async fn finish(self) {
        if let Some(Runner { queue, task, .. }) = self.runner {
            drop(queue);
            let _ = task.await;
        }
    }

    /// Whether every notification received so far has run.
    fn is_settled(&self) -> bool {
        self.runner
            .as_ref()
            .is_none_or(|runner| *runner.done.borrow() >= self.received)
    }

    /// Resolves once every notification received so far has run.
    fn settled(&self) -> impl Future<Output = ()> + Send + use<> {
        let received = self.received;
        let done = match &self.runner {
            Some(runner) if !self.is_settled() => Some(runner.done.clone()),
            _ => None,
        };
        async move {
            // An error means the notification task has ended: nothing to wait for.
            if let Some(mut done) = done {
                let _ = done.wait_for(|done| *done >= received).await;
            }
        }
    }

    /// Hands `responses` (from `message`) to their calls: now, or once the
    /// notifications that came before them have run.
    fn deliver(
        &self,
        shared: &Arc<Shared>,
        message: &Bytes,
        responses: Vec<(Option<u64>, &serde_json::value::RawValue)>,
    ) {
        if self.is_settled() {
            return deliver(shared, message, responses);
        }
        let (shared, message, settled) = (shared.clone(), message.clone(), self.settled());
        tokio::spawn(async move {
            settled.await;
            match wire::classify(&message) {
                Incoming::Responses(responses) | Incoming::Mixed { responses, .. } => {
                    deliver(&shared, &message, responses)
                }
                Incoming::Notification | Incoming::ForRouter => {}
            }
        });
    }

    /// Queues a notification; `false` if the connection is closing.
    async fn queue(
        &mut self,
        message: Bytes,
        setup: &Setup,
        context: &Arc<Context>,
        shared: &Shared,
    ) -> bool {
        self.received += 1;
        let number = self.received;
        tokio::select! {
            sent = self.runner(setup, context, shared).queue.send((number, message)) => sent.is_ok(),
            () = shared.closing.cancelled() => false,
        }
    }
}

/// The idle timeout of a connection that has none: longer than any
/// connection lives.
const NO_IDLE_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

fn idle(in_flight: &InFlight, shared: &Shared) -> bool {
    in_flight.is_idle() && no_calls_waiting(shared)
}

/// Whether no call of this end waits for a response. A server that never
/// calls its client (the common case) has handed out no id: it need not
/// lock the map to know.
fn no_calls_waiting(shared: &Shared) -> bool {
    shared.next_id.load(Ordering::Relaxed) == FIRST_ID || lock(&shared.pending).is_empty()
}

/// The text of a batch of `entries`.
#[cold]
fn batch_of(entries: &[&serde_json::value::RawValue]) -> String {
    let mut batch = String::from("[");
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            batch.push(',');
        }
        batch.push_str(entry.get());
    }
    batch.push(']');
    batch
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
        match waiting {
            // A lone response is the whole message: hand it over without a copy.
            Some(reply) if single => drop(reply.send(message.clone())),
            Some(reply) => drop(reply.send(Bytes::copy_from_slice(raw.get().as_bytes()))),
            None => tracing::debug!(?id, "a response that no call is waiting for was dropped"),
        }
    }
}

#[cold]
fn too_large() -> String {
    let error = ErrorObject::new(crate::code::INVALID_REQUEST, "Request too large");
    wire::failure(None, &error)
}

/// Sends what is queued until the connection closes; `true` when it ended
/// with everything sent and the connection closed cleanly.
async fn write_loop<W: MessageWriter>(
    writer: W,
    outbox: mpsc::Receiver<String>,
    finished: &Finished,
    shared: &Shared,
    timeout: Option<Duration>,
) -> bool {
    let mut queues = Queues {
        outbox,
        armed: None,
        finished,
    };
    let clean = write_all(writer, &mut queues, shared, timeout).await;
    // Nothing more is written: replies handed over from now on are dropped
    // at once, with their slots.
    finished.close();
    clean
}

async fn write_all<W: MessageWriter>(
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
            shared.closing.cancel();
            return false;
        }
    }
    // Closing: send what is already queued, then end the connection cleanly.
    while let Some(message) = queues.try_next() {
        if write(&mut writer, &message, timeout).await.is_err() {
            return false;
        }
    }
    within(timeout, writer.flush()).await.is_ok() && within(timeout, writer.close()).await.is_ok()
}

/// Runs one `write`, failing it with `TimedOut` if it has not finished
/// within `timeout` (a timer made only if the write does not finish at once).
async fn within<F>(timeout: Option<Duration>, write: F) -> io::Result<()>
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

/// Writes `first` and everything else already queued, then flushes once.
async fn write_batch<W: MessageWriter>(
    writer: &mut W,
    first: Outgoing,
    queues: &mut Queues<'_>,
    timeout: Option<Duration>,
) -> io::Result<()> {
    write(writer, &first, timeout).await?;
    while let Some(message) = queues.try_next() {
        write(writer, &message, timeout).await?;
    }
    within(timeout, writer.flush()).await
}

/// Writes one message; a reply the reader already put in the transport's
/// buffer needs only the flush that follows.
async fn write<W: MessageWriter>(
    writer: &mut W,
    message: &Outgoing,
    timeout: Option<Duration>,
) -> io::Result<()> {
    match message.text() {
        Some(text) => within(timeout, writer.write_message(text)).await,
        None => Ok(()),
    }
}

/// Replies of requests that finished as they were read, handed from the
/// reader to the writer without a channel (see [`Running::inline`]). Each
/// keeps its request's in-flight slot until it is written: the reader
/// reads no more requests than the writer can take, so a peer that does not
/// read its replies stops being read from.
struct Finished {
    /// `None` once the writer has stopped.
    replies: Mutex<Option<VecDeque<Reply>>>,
}

/// A reply in [`Finished`], with its request's slot.
struct Reply {
    /// `None`: the reader sent it itself, and the flush sends what the
    /// peer did not take yet.
    text: Option<String>,
    /// Released once the reply is written.
    _slot: Slot,
}

impl Finished {
    fn new() -> Self {
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
        // Taken out first: the slots are released outside the lock.
        let dropped = lock(&self.replies).take();
        drop(dropped);
    }
}

/// The reader's side of [`Finished`], and of [`DirectReply`].
struct Replies<'a, D> {
    finished: &'a Finished,
    /// The writer: it runs after the reader in the same pass of the task.
    writer: Nudge,
    /// The writer's other queue, checked before a reply is sent directly.
    outbox: &'a mpsc::Sender<String>,
    direct: D,
}

impl<D: DirectReply> Replies<'_, D> {
    /// Hands `reply` on: sent by the reader itself when the writer has
    /// nothing queued (then it overtakes nothing, and frees its slot once
    /// sent), else queued for the writer with its slot.
    fn push(&mut self, cx: &mut std::task::Context<'_>, reply: String, slot: Slot) {
        if D::CAN && self.nothing_queued() {
            match self.direct.try_reply(cx, &reply) {
                Direct::Sent => return,
                // The writer sends the rest, under its write timeout, and
                // the slot is held until it has.
                Direct::Unsent => return self.queue(None, slot),
                Direct::Refused => {}
            }
        }
        self.queue(Some(reply), slot);
    }

    /// Queues `text` (see [`Reply`]) for the writer, with its slot.
    fn queue(&self, text: Option<String>, slot: Slot) {
        let reply = Reply { text, _slot: slot };
        let mut replies = lock(&self.finished.replies);
        match replies.as_mut() {
            Some(queue) => {
                queue.push_back(reply);
                self.writer.nudge();
            }
            // The writer has stopped: the reply is dropped (its slot
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
struct Queues<'a> {
    /// Messages of any kind: requests and notifications to the peer, replies
    /// of requests that ran as tasks.
    outbox: mpsc::Receiver<String>,
    /// The waker the outbox holds, if it still holds one: it gives it up
    /// (and wakes it) at the next message sent.
    armed: Option<Waker>,
    finished: &'a Finished,
}

/// A message for the writer.
enum Outgoing {
    Finished(Reply),
    Queued(String),
}

impl Outgoing {
    /// `None`: nothing to write, only a flush.
    fn text(&self) -> Option<&str> {
        match self {
            Outgoing::Finished(reply) => reply.text.as_deref(),
            Outgoing::Queued(text) => Some(text),
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
            if let Some(next) = self.try_next() {
                return Poll::Ready(Some(next));
            }
            // Waiting on the outbox costs a lock-free handshake and a
            // waker registration; when the outbox still holds this waker
            // (no message came since), there is nothing to register.
            if !self
                .armed
                .as_ref()
                .is_some_and(|armed| armed.will_wake(cx.waker()))
            {
                // Out of budget, the outbox returns `Pending` without taking
                // the waker: it is not armed then.
                let registers = tokio::task::coop::has_budget_remaining();
                if let Poll::Ready(Some(message)) = self.outbox.poll_recv(cx) {
                    return Poll::Ready(Some(Outgoing::Queued(message)));
                }
                self.armed = registers.then(|| cx.waker().clone());
            }
            Pin::new(&mut *closing).poll(cx).map(|()| None)
        })
        .await
    }

    /// The next message if one is waiting. The outbox first: what a
    /// handler sent before it returned (a progress notification, a request
    /// to the peer) was queued there before its reply reached `finished`,
    /// and must reach the peer before the reply.
    fn try_next(&mut self) -> Option<Outgoing> {
        // Checked before it is read: an empty outbox is the common case,
        // and `is_empty` is the cheapest way to find it so.
        if !self.outbox.is_empty() {
            // A message was sent: the outbox has woken (and let go of) the
            // waker it held.
            self.armed = None;
            if let Ok(message) = self.outbox.try_recv() {
                return Some(Outgoing::Queued(message));
            }
        }
        self.finished.pop()
    }
}
