//! Serving one accepted connection (TCP, or TLS over TCP) with hyper, under
//! its timers.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

use super::header_wait::HeaderWait;
use super::protocols::ConnectionBuilder;
use super::respond::{Origin, respond};
use super::service::{Handover, Shared};
use crate::transport::sync::presence::Presence;
use crate::transport::sync::rare_events::{self, Event, Raced, Rare};

/// Serves one connection until the peer closes it, or until the server stops
/// or the listener needs its slot (`presence`) and the request in flight
/// (if any) has been answered. A connection upgraded to WebSocket is then
/// served here, to its end.
pub(crate) async fn serve_connection<S>(
    builder: ConnectionBuilder,
    stream: S,
    peer: SocketAddr,
    shared: Arc<Shared>,
    presence: Arc<Presence>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // The server's stopping, or the listener's need of the slot.
    let stopping = presence.stop().clone();
    let header_timeout = shared.limits.header_wait();
    // What the service needs for each request, in one `Arc`: one clone per
    // request.
    let state = Arc::new(ConnectionState {
        shared,
        peer,
        handover: Handover::new(presence.clone()),
        header_wait: HeaderWait::new(),
        presence,
    });
    let service = hyper::service::service_fn({
        let state = state.clone();
        move |request| respond(state.clone(), request)
    });
    #[cfg(not(feature = "http2"))]
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    #[cfg(feature = "http2")]
    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    // The server stopping (first) and the header timeout (second) in one
    // `Rare`: polled only when one of them fires.
    let mut interrupts = Rare::new(rare_events::either(
        stopping.cancelled_owned(),
        state.header_wait.expired(header_timeout),
    ));
    let served = loop {
        match interrupts.race(connection.as_mut()).await {
            Raced::Done(served) => break served,
            Raced::Interrupted(Event::First) => connection.as_mut().graceful_shutdown(),
            // Dropping the connection closes it, without a response.
            Raced::Interrupted(Event::Second) => {
                tracing::debug!(%peer, "no request headers within the header timeout");
                return;
            }
        }
    };
    if let Err(err) = served {
        tracing::debug!(%peer, %err, "HTTP connection ended with an error");
    }
    // After a `101 Switching Protocols`, hyper has handed the socket over.
    if let Some(session) = state.handover.take() {
        session.await;
    }
}

/// One connection of [`Server::serve_http`](crate::transport::Server::serve_http), as its requests see it.
struct ConnectionState {
    shared: Arc<Shared>,
    peer: SocketAddr,
    handover: Handover,
    header_wait: HeaderWait,
    presence: Arc<Presence>,
}

impl Origin for Arc<ConnectionState> {
    fn shared(&self) -> &Shared {
        &self.shared
    }

    fn peer(&self) -> Option<SocketAddr> {
        Some(self.peer)
    }

    fn handover(&self) -> Option<&Handover> {
        Some(&self.handover)
    }

    fn serving(&self) {
        self.header_wait.serving();
        self.presence.serving();
    }

    /// hyper writes the response and then waits for the next request's
    /// headers.
    fn answered(&self) {
        self.header_wait.waiting();
        self.presence.answered();
    }

    fn answered_later(&self) -> super::respond::AnsweredLater {
        let state = self.clone();
        super::respond::AnsweredLater::new(move || state.answered())
    }
}
