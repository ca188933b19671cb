//! Serving one two-way connection (requests both ways) over any message transport.

use std::future::Future;
use std::sync::Arc;

use super::{Lifecycle, Server, ServerHandle};
use crate::Context;
use crate::transport::connection::{
    Budget, MessageReader, MessageWriter, Setup, Timers, ViaWriter, open,
};
use crate::transport::sync::presence::Presence;

impl Server {
    /// Serves one connection over any message transport: a [`MessageReader`]
    /// and a [`MessageWriter`] of whole messages (the byte-stream framings
    /// and WebSocket are two such; an in-memory channel or a message queue
    /// can be another). It stops when the reader reports
    /// [`Inbound::Closed`](crate::transport::Inbound::Closed), or at [`ServerHandle::shutdown`].
    ///
    /// Must be called within a tokio runtime, which drives the connection.
    ///
    /// ```
    /// use typed_rpc::transport::stream::{FramedReader, FramedWriter, Framing};
    /// use typed_rpc::transport::Server;
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
        let timers = Timers::default();
        lifecycle.spawn(self.drive(reader, writer, context, &lifecycle, timers, None));
        // The one connection is the whole server: it has stopped when it ends.
        lifecycle.tasks.close();
        ServerHandle::new(None, lifecycle, self.limits.shutdown_wait())
    }

    /// The driver of one server-side connection, to be spawned, with its
    /// `timers`, and its `presence` when a listener admitted it (it then
    /// closes when asked to).
    pub(crate) fn drive<R, W>(
        &self,
        reader: R,
        writer: W,
        context: Context,
        lifecycle: &Lifecycle,
        timers: Timers,
        presence: Option<Arc<Presence>>,
    ) -> impl Future<Output = ()> + Send + use<R, W>
    where
        R: MessageReader,
        W: MessageWriter,
    {
        let setup = Setup {
            router: self.router.clone(),
            context,
            max_in_flight: self.limits.in_flight(),
            max_backlog: self.limits.backlog_size(),
            idle_timeout: timers.idle,
            write_timeout: timers.write,
            stopping: presence.as_ref().map_or_else(
                || lifecycle.stopping.clone(),
                |presence| presence.stop().clone(),
            ),
            linger: timers.linger,
            subscriptions: Budget::of_server(&self.limits, lifecycle.subscriptions.clone()),
            answer_after_close: Some(self.limits.shutdown_wait()),
            presence,
        };
        open(reader, writer, ViaWriter, setup, false).1
    }
}
