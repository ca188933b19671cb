//! The read loop: serving the peer's requests and sorting what else arrives.

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use tokio::runtime::RuntimeFlavor;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tracing::{Instrument, Span};

use super::backlog::{Backlog, Held, over_budget};
use super::cancel::Cancels;
use super::order::Order;
use super::schedule::Ticket;
use super::writer::{Outbound, Replies};
use super::{DirectReply, Inbound, MessageReader, Setup, Shared, no_calls_waiting};
use crate::router::{FromPeer, PeerMessage};
use crate::transport::sync::in_flight::{InFlight, Permit};
use crate::transport::sync::rare_events::{self, Event, Raced, Rare};
use crate::wire::{self, Incoming, Notification};
use crate::{Context, ErrorObject};

/// Serves the peer's messages until it closes the connection, the read
/// fails, the connection has been idle too long, or this end stops reading
/// (a shutdown, or the connection closing). Returns `true` in the last case,
/// where the peer may still be sending. The calls that run as tasks open
/// their spans in `span`, the connection's.
pub(super) async fn read_loop<R: MessageReader, D: DirectReply>(
    reader: &mut R,
    shared: &Arc<Shared>,
    setup: &Setup,
    context: Arc<Context>,
    mut replies: Replies<'_, D>,
    span: &Span,
) -> bool {
    let mut cut_short = true;
    let mut peer_closed = false;
    let in_flight = InFlight::new(setup.max_in_flight);
    if let Some(presence) = &setup.presence {
        presence.watch(in_flight.probe().with_streams(shared.budget.streaming()));
    }
    // The requests running. They belong to the connection: if it is dropped
    // before they finish (a shutdown past its deadline), so are they.
    let mut requests = JoinSet::new();
    // The notifications running, apart: a peer that sent one and closed
    // its end has not taken it back, so they run on once no reply can
    // reach the peer any more.
    let mut notifications = JoinSet::new();
    let inline = matches!(
        tokio::runtime::Handle::current().runtime_flavor(),
        RuntimeFlavor::CurrentThread
    );
    let mut order = Order::new(&setup.router);
    let mut cancels = Cancels::of(&setup.router, setup.max_in_flight);
    // What was read past while the requests before it waited for room.
    let mut backlog = Backlog::new(setup.max_backlog);
    // A lone notification read and not yet run (the router left it for its
    // turn, or the backlog held it), to run next.
    let mut carried: Option<Notification> = None;
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
        let message = match carried.take() {
            Some(notification) => Read::Notification(notification),
            None => {
                let read = match backlog.next() {
                    Some(Held::Read(held)) => Some(held),
                    Some(Held::Notification(notification)) => {
                        active.store(true, Ordering::Relaxed);
                        touch(setup);
                        carried = Some(notification);
                        continue;
                    }
                    None => match interrupts.race(pin!(reader.read_message())).await {
                        Raced::Done(read) => Some(read),
                        Raced::Interrupted(Event::First) => break,
                        Raced::Interrupted(Event::Second) => None,
                    },
                };
                let message = match read {
                    Some(Ok(Inbound::Message(message))) => message,
                    Some(Ok(Inbound::TooLarge)) => {
                        active.store(true, Ordering::Relaxed);
                        touch(setup);
                        let _ = shared.outbox.send(too_large().into()).await;
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
                        if setup.answer_after_close.is_none() {
                            shared.unreachable.cancel();
                        }
                        peer_closed = true;
                        cut_short = false;
                        break;
                    }
                    Some(Err(err)) => {
                        tracing::debug!(%err, "connection read failed");
                        shared.unreachable.cancel();
                        cut_short = false;
                        break;
                    }
                };
                active.store(true, Ordering::Relaxed);
                touch(setup);
                Read::Message(message)
            }
        };
        // Each message is read once, into what it is, and handed on as that.
        // A lone object that could only be for the router or dropped (no
        // turns declared, no call of ours waits for a response, nothing is
        // queued before it, a permit is free) goes straight to the router,
        // which tells a notification or a response from a request as it
        // parses: nearly every message a server gets. The rest are sorted
        // first: a notification read into its method and params, which the
        // cancel notices, the subscriptions, the order and the router take
        // as they are.
        let for_router = match message {
            Read::Message(message)
                if inline
                    && !order.is_declared()
                    && order.is_settled()
                    && in_flight.has_free()
                    && wire::is_object(&message)
                    && no_calls_waiting(shared) =>
            {
                PeerMessage::Text(message)
            }
            Read::Notification(notification) => PeerMessage::Notification(notification),
            Read::Message(message) => match wire::classify(&message) {
                Incoming::Notification(notification) => PeerMessage::Notification(notification),
                Incoming::ForRouter => PeerMessage::Text(message),
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
                    PeerMessage::Text(requests)
                }
            },
        };
        if let PeerMessage::Notification(notification) = &for_router {
            if is_cancel(&mut cancels, notification) {
                continue;
            }
            // An item of one of this end's subscriptions is for its reader.
            if shared.subscribed.route(notification).await {
                continue;
            }
        }
        // A permit is nearly always free: waiting for one is the slow path.
        let permit = match in_flight.try_take() {
            Some(permit) => permit,
            // Requests are in flight: the idle timeout does not apply. While
            // a handler waits for the peer's response, read on for it: it
            // must not wait behind the requests that wait for the handler.
            None => loop {
                tokio::select! {
                    biased;
                    event = &mut interrupts => if let Event::First = event {
                        break 'reading;
                    },
                    permit = in_flight.take() => break permit,
                    read = async {
                        shared.handler_waits().await;
                        reader.read_message().await
                    }, if backlog.can_read() => {
                        if backlog.hold(read, &order, shared, &mut cancels).is_err() {
                            over_budget(shared, setup.max_backlog).await;
                            break 'reading;
                        }
                    }
                }
            },
        };
        let admitted = order.admit(&setup.router, &for_router);
        if let (Some(key), Some(cancels)) = (&admitted.supersedes, cancels.as_mut()) {
            cancels.supersede(key);
        }
        let outbox = &shared.outbox;
        // Kept to find the request's id should it have to wait, and only
        // when it can be cancelled: a reference count (on WebSocket, a
        // small allocation), where parsing every request for its id would
        // cost more.
        let (held, tasks) = match &for_router {
            PeerMessage::Text(request) => {
                (cancels.is_some().then(|| request.clone()), &mut requests)
            }
            PeerMessage::Notification(_) => (None, &mut notifications),
        };
        let (ticket, key) = (admitted.ticket, admitted.key);
        if inline {
            // In a box, where it can be polled and still move to a task;
            // boxed before the read loop awaits anything, so the
            // connection's own future holds a pointer to the call across
            // its awaits, not the call itself. The box is allocated before
            // the call is made, so that the call is made in it: moved as a
            // value, the whole future (mostly room for the states it has
            // not reached) would be copied on the way, more than once.
            let call = serve(ticket, setup, &context, for_router);
            let call = Box::into_pin(Box::write(Box::new_uninit(), call));
            // Polled once with the task's context, in place: no future of
            // its own for the first poll (see `Running::inline`).
            let mut running = Some(Running {
                call,
                permit,
                outbox,
                held,
                span,
                key,
            });
            let unserved = std::future::poll_fn(|cx| {
                let running = running.take().expect("polled once: it is ready at once");
                Poll::Ready(running.inline(cx, &mut replies, tasks, &mut cancels))
            });
            match unserved.await {
                Some(Served::Notification(notification)) => carried = Some(notification),
                Some(Served::Response(message)) => {
                    if let Incoming::Responses(responses) = wire::classify(&message) {
                        order.deliver(shared, &message, responses);
                    }
                }
                Some(Served::Reply(_)) | None => {}
            }
        } else {
            let call = serve(ticket, setup, &context, for_router);
            Running {
                call,
                permit,
                outbox,
                held,
                span,
                key,
            }
            .spawn(tasks, &mut cancels);
        }
        // Forget the ones that have finished.
        while !requests.is_empty() && requests.try_join_next().is_some() {}
        while !notifications.is_empty() && notifications.try_join_next().is_some() {}
    }
    // Let the notifications and requests in flight finish and queue their
    // replies, then close; but a request whose reply can no longer reach
    // the peer is dropped, its handler with it (its notifications run on),
    // and so is anything still running long after the peer closed its end.
    let patience = async {
        match setup.answer_after_close.filter(|_| peer_closed) {
            Some(patience) => tokio::time::sleep(patience).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = in_flight.all_back() => {}
        () = shared.unreachable.cancelled() => drop_running(&mut requests, &in_flight).await,
        () = patience => {
            notifications.shutdown().await;
            drop_running(&mut requests, &in_flight).await;
        }
    }
    shared.closing.cancel();
    cut_short
}

/// Drops the requests still running, their handlers with them, and waits
/// for the replies already handed to the writer.
async fn drop_running(requests: &mut JoinSet<()>, in_flight: &InFlight) {
    tracing::debug!(
        running = requests.len(),
        "the peer is gone: dropping its requests"
    );
    requests.shutdown().await;
    in_flight.all_back().await;
}

/// What the read loop takes next: a message as it was read, or a lone
/// notification the router has read and left for its turn.
enum Read {
    Message(Bytes),
    Notification(Notification),
}

/// What serving a message came to.
pub(super) enum Served {
    /// The router's reply, if any.
    Reply(Option<String>),
    /// A lone notification, read and not run: it runs in its turn.
    Notification(Notification),
    /// A lone response, for the call it answers.
    Response(Bytes),
}

/// Serves `message` in the turn its `ticket` gives it, holding the ticket
/// until it is done.
pub(super) fn serve(
    ticket: Ticket,
    setup: &Setup,
    context: &Arc<Context>,
    message: PeerMessage,
) -> impl Future<Output = Served> + Send + 'static {
    let (router, context) = (setup.router.clone(), context.clone());
    async move {
        ticket.turn().await;
        match router.handle_from_peer(&message, &context).await {
            FromPeer::Reply(reply) => Served::Reply(reply),
            FromPeer::Notification(notification) => Served::Notification(notification),
            FromPeer::Response => match message {
                PeerMessage::Text(message) => Served::Response(message),
                // A notification read is run, never handed back.
                PeerMessage::Notification(_) => Served::Reply(None),
            },
        }
    }
}

/// Whether `notification` is the router's cancel notification; if so, it
/// has been acted on.
pub(super) fn is_cancel(cancels: &mut Option<Cancels>, notification: &Notification) -> bool {
    cancels
        .as_mut()
        .is_some_and(|cancels| cancels.cancel(notification))
}

/// A request's call, about to start, with the in-flight permit it holds
/// until its reply is handed to the writer.
pub(super) struct Running<'a, F> {
    call: F,
    permit: Permit,
    outbox: &'a mpsc::Sender<Outbound>,
    /// The request, if it can be cancelled once it runs as a task.
    held: Option<Bytes>,
    /// The connection's span, in which a call that runs as a task opens
    /// its own, as one polled inline does.
    span: &'a Span,
    /// Its key, if an exclusive message may supersede it.
    key: Option<Box<str>>,
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
    /// of its own in the read loop's future, which every message would
    /// otherwise pass through.
    fn inline<D: DirectReply>(
        self,
        cx: &mut std::task::Context<'_>,
        replies: &mut Replies<'_, D>,
        requests: &mut JoinSet<()>,
        cancels: &mut Option<Cancels>,
    ) -> Option<Served> {
        let mut call = self.call;
        match call.as_mut().poll(cx) {
            Poll::Ready(Served::Reply(Some(reply))) => replies.push(cx, reply, self.permit),
            Poll::Ready(Served::Reply(None)) => {}
            Poll::Ready(unserved) => return Some(unserved),
            Poll::Pending => Running { call, ..self }.spawn(requests, cancels),
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
    /// reply goes through the outbox. With a cancel policy, a single
    /// request is registered for its cancel notification to find.
    fn spawn(self, requests: &mut JoinSet<()>, cancels: &mut Option<Cancels>) {
        let Running {
            call,
            permit,
            outbox,
            held,
            span,
            key,
        } = self;
        let cancellable = cancels
            .as_mut()
            .zip(held)
            .and_then(|(cancels, request)| cancels.register(&request, key));
        // The request may lend its place while it waits on the peer.
        let call = super::lend::lending(&permit, outbox, call);
        let outbox = outbox.clone();
        let task = async move {
            let served = match cancellable {
                Some(cancellable) => cancellable.run(call).await,
                None => call.await,
            };
            // Only a request's reply: a lone notification or response goes
            // through `inline`, or is sorted out before the router.
            if let Served::Reply(Some(reply)) = served {
                let _ = outbox.send(reply.into()).await;
            }
            drop(permit);
        };
        requests.spawn(task.instrument(span.clone()));
    }
}

/// The idle timeout of a connection that has none: longer than any
/// connection lives.
pub(super) const NO_IDLE_TIMEOUT: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// Tells the listener that admitted the connection, if any, that a
/// message arrived.
fn touch(setup: &Setup) {
    if let Some(presence) = &setup.presence {
        presence.touch();
    }
}

/// Nothing going on: no request in flight, no call waiting for its
/// response, and no subscription streaming to the peer.
pub(super) fn idle(in_flight: &InFlight, shared: &Shared) -> bool {
    in_flight.is_idle() && no_calls_waiting(shared) && !shared.budget.is_streaming()
}

/// The text of a batch of `entries`.
#[cold]
pub(super) fn batch_of(entries: &[&serde_json::value::RawValue]) -> String {
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

#[cold]
pub(super) fn too_large() -> String {
    let error = ErrorObject::new(crate::code::INVALID_REQUEST, "Request too large");
    wire::failure(None, &error)
}
