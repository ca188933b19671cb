//! The `tracing` span of a two-way connection, parent of its calls' spans.

use tracing::Span;
use tracing::field::Empty;

use crate::Context;

/// The span a connection's driver runs in, for the transport and peer of
/// `context`; the spans of the calls it serves open inside it. Disabled,
/// and then entered for the price of a check per poll, when no subscriber
/// wants the target `typed_rpc::connection`.
pub(super) fn of_connection(context: &Context, client: bool) -> Span {
    let span = tracing::info_span!(
        target: "typed_rpc::connection",
        "rpc.connection",
        otel.kind = if client { "client" } else { "server" },
        rpc.system = "jsonrpc",
        rpc.transport = %context.transport(),
        network.peer.address = Empty,
        network.peer.port = Empty,
    );
    if !span.is_disabled()
        && let Some(addr) = context.remote_addr()
    {
        span.record("network.peer.address", tracing::field::display(addr.ip()));
        span.record("network.peer.port", addr.port());
    }
    span
}
