//! Several servers stopped as one: [`ServerGroup`].

use std::net::SocketAddr;

use tokio::time::Instant;

use super::ServerHandle;

/// Several running servers (an HTTP port, a TCP port, stdio, ...) behind one
/// handle, with one graceful shutdown for all of them.
///
/// [`shutdown`](ServerGroup::shutdown) first makes every server stop
/// accepting connections and reading new requests, all before it waits for
/// any of them: no listener takes a new connection while another drains.
/// Then it lets the requests in flight on every server finish, each within
/// its own [`Limits::shutdown_timeout`](crate::transport::Limits::shutdown_timeout)
/// counted from that one moment.
///
/// ```no_run
/// use typed_rpc::transport::{Server, ServerGroup};
/// use typed_rpc::transport::stream::Framing;
/// # async fn demo(router: typed_rpc::Router) -> std::io::Result<()> {
///
/// let server = Server::new(router);
/// let servers = ServerGroup::from_iter([
///     server.serve_http("127.0.0.1:3000").await?, // WebSocket too, with the `ws` feature
///     server.serve_tcp("127.0.0.1:3001", Framing::Lines).await?,
/// ]);
/// // ... on Ctrl-C (`tokio::signal::ctrl_c`), say:
/// let finished_in_time = servers.shutdown().await;
/// # let _ = finished_in_time; Ok(()) }
/// ```
#[derive(Debug, Default)]
#[must_use = "dropping the group leaves its servers running with no way to stop them"]
pub struct ServerGroup {
    handles: Vec<ServerHandle>,
}

impl ServerGroup {
    /// An empty group.
    pub fn new() -> Self {
        ServerGroup::default()
    }

    /// The group with `handle` added.
    pub fn with(mut self, handle: ServerHandle) -> Self {
        self.push(handle);
        self
    }

    /// Adds `handle` to the group.
    pub fn push(&mut self, handle: ServerHandle) {
        self.handles.push(handle);
    }

    /// The handles of the servers, in the order they were added.
    pub fn handles(&self) -> &[ServerHandle] {
        &self.handles
    }

    /// The addresses the servers listen on, in the order they were added
    /// (servers without a socket, such as stdio, have none).
    pub fn local_addrs(&self) -> impl Iterator<Item = SocketAddr> + '_ {
        self.handles.iter().filter_map(ServerHandle::local_addr)
    }

    /// Stops every server at once, then lets each finish its requests in
    /// flight as [`ServerHandle::shutdown`] does.
    ///
    /// Returns `true` if every server finished before its deadline.
    pub async fn shutdown(self) -> bool {
        let began = Instant::now();
        for handle in &self.handles {
            handle.lifecycle.begin_shutdown();
        }
        let mut all_in_time = true;
        // Waited for one after another, but all of them are draining from
        // the same moment, so each deadline is counted from `began`.
        for handle in &self.handles {
            let deadline = began + handle.shutdown_timeout;
            all_in_time &= handle.lifecycle.finish_by(deadline).await;
        }
        all_in_time
    }

    /// Resolves once every server has stopped.
    pub async fn stopped(&self) {
        for handle in &self.handles {
            handle.stopped().await;
        }
    }
}

impl FromIterator<ServerHandle> for ServerGroup {
    fn from_iter<I: IntoIterator<Item = ServerHandle>>(handles: I) -> Self {
        ServerGroup {
            handles: handles.into_iter().collect(),
        }
    }
}

impl Extend<ServerHandle> for ServerGroup {
    fn extend<I: IntoIterator<Item = ServerHandle>>(&mut self, handles: I) {
        self.handles.extend(handles);
    }
}
