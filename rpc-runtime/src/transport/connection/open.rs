//! Opening a connection: its settings, the client constructors, and the driver that runs both loops.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::reader::read_loop;
use super::writer::{Finished, Replies, write_loop};
use super::{
    CloseOnDrop, Connection, DirectReply, FIRST_ID, Inbound, MessageReader, MessageWriter, Shared,
    ViaWriter,
};
use crate::context::ConnectionExtensions;
use crate::transport::sync::presence::Presence;
use crate::transport::sync::rare_events::Rare;
use crate::transport::sync::{in_order, lock};
use crate::transport::{DEFAULT_CALL_TIMEOUT, Limits};
use crate::{Context, Router};

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
    /// The most bytes of the peer's messages held unrun while a handler
    /// waits for the peer's answer (see [`Limits::max_backlog_size`]).
    pub(crate) max_backlog: usize,
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
    /// How many subscriptions the peer may hold.
    pub(crate) subscriptions: super::Budget,
    /// How long the requests read before the peer closed its end may go on
    /// to answer it; `None`: they are dropped at once. A byte stream's end
    /// of input may be half a close, the peer still reading (`nc -N`, a
    /// shell pipe into stdio): they answer, as in a graceful shutdown, and
    /// within its timeout, so that a client gone for good (an editor that
    /// quit) does not keep its handlers running. A WebSocket close frame
    /// ends the connection both ways: nothing may be sent after it.
    pub(crate) answer_after_close: Option<Duration>,
    /// What the listener that admitted this connection learns of its
    /// activity (then `stopping` is the connection's own, cancelled also
    /// when the listener needs its slot); `None` for a client or a
    /// connection served alone.
    pub(crate) presence: Option<Arc<Presence>>,
}

impl Connection {
    /// Opens a client connection over any message transport (see
    /// [`Server::serve_messages`](crate::transport::Server::serve_messages)); `handlers` serve the requests and
    /// notifications the peer sends. The connection closes when its last
    /// clone is dropped. Must be called within a tokio runtime.
    ///
    /// ```
    /// use typed_rpc::client::ClientExt;
    /// use typed_rpc::transport::stream::{FramedReader, FramedWriter, Framing};
    /// use typed_rpc::transport::{Connection, Server};
    /// use typed_rpc::{Context, TransportKind};
    /// # use typed_rpc::{Call, HandlerFuture, Router, RpcService, ServiceInfo};
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
        max_backlog: Limits::default().backlog_size(),
        idle_timeout: None,
        write_timeout: None,
        stopping: CancellationToken::new(),
        linger: None,
        subscriptions: super::Budget::unshared(Limits::default().subscriptions()),
        answer_after_close: Some(Limits::default().shutdown_wait()),
        presence: None,
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
        handler_called: tokio::sync::Notify::new(),
        next_id: AtomicU64::new(FIRST_ID),
        closing: CancellationToken::new(),
        unreachable: CancellationToken::new(),
        closed: CancellationToken::new(),
        subscriptions: Mutex::default(),
        subscribed: Default::default(),
        budget: setup.subscriptions.clone(),
    });
    // Both ends of a connection speak one protocol: the calls of this end
    // are cancelled the way its router lets the peer cancel.
    let cancel = setup.router.shared_cancel_policy().cloned();
    let handler_side = Connection {
        shared: shared.clone(),
        _owner: None,
        timeout: Some(DEFAULT_CALL_TIMEOUT),
        cancel: cancel.clone(),
    };
    let owner = owned.then(|| Arc::new(CloseOnDrop(shared.closing.clone())));
    let handle = Connection {
        shared: shared.clone(),
        _owner: owner,
        timeout: Some(DEFAULT_CALL_TIMEOUT),
        cancel,
    };
    let span = super::span::of_connection(&setup.context, owned);
    let calls_parent = span.clone();
    let mut context = setup.context.clone().with_connection(handler_side);
    if context.connection_extensions().is_none() {
        context = context.with_connection_extensions(ConnectionExtensions::new());
    }
    let context = Arc::new(context);
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
        let reading = Rare::new(read_loop(
            &mut reader,
            &shared,
            &setup,
            context,
            replies,
            &calls_parent,
        ));
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
    (handle, driver.instrument(span))
}
