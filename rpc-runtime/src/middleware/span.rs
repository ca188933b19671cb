//! The `tracing` span of a call, with OpenTelemetry's attributes for JSON-RPC.

use std::future::Future;

use tracing::field::Empty;
use tracing::{Instrument, Level, Span};

use super::{CallRequest, Reply};
use crate::ErrorObject;

/// Whether a subscriber wants call spans: asked before the stack is built,
/// so that a router without layers and without such a subscriber keeps
/// the direct path.
#[inline]
pub(crate) fn wanted() -> bool {
    tracing::enabled!(target: "typed_rpc::call", Level::INFO)
}

/// The span of `request`, or `None` when no subscriber wants it.
pub(crate) fn of_call(request: &CallRequest<'_>) -> Option<Span> {
    let context = request.context();
    let span = tracing::info_span!(
        target: "typed_rpc::call",
        "rpc.call",
        otel.kind = "server",
        otel.name = request.method(),
        otel.status_code = Empty,
        rpc.system = "jsonrpc",
        rpc.method = request.method(),
        rpc.jsonrpc.version = "2.0",
        rpc.jsonrpc.request_id = Empty,
        rpc.jsonrpc.error_code = Empty,
        rpc.jsonrpc.error_message = Empty,
        rpc.transport = %context.transport(),
        network.peer.address = Empty,
        network.peer.port = Empty,
        // Left for a layer to record, as the module's docs show.
        enduser.id = Empty,
        tenant.id = Empty,
    );
    if span.is_disabled() {
        return None;
    }
    if let Some(id) = request.id() {
        span.record("rpc.jsonrpc.request_id", request_id(id.as_json()));
    }
    if let Some(addr) = context.remote_addr() {
        span.record("network.peer.address", tracing::field::display(addr.ip()));
        span.record("network.peer.port", addr.port());
    }
    Some(span)
}

/// Runs `reply` in `span`, if any, and records its error there.
pub(crate) async fn run(span: Option<Span>, reply: impl Future<Output = Reply>) -> Reply {
    let Some(span) = span else {
        return reply.await;
    };
    let reply = reply.instrument(span.clone()).await;
    if let Some(error) = reply.error() {
        record_error(&span, &error);
    }
    reply
}

/// Records `error` on `span`: the call's error reply, or the error item
/// that ended its stream.
pub(crate) fn record_error(span: &Span, error: &ErrorObject) {
    span.record("rpc.jsonrpc.error_code", error.code());
    span.record("rpc.jsonrpc.error_message", error.message());
    span.record("otel.status_code", "ERROR");
}

/// The id as OpenTelemetry spells it: a string id without its quotes (and
/// as sent, escapes included), a number as its digits, `null` as `null`.
pub(crate) fn request_id(json: &str) -> &str {
    json.strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .unwrap_or(json)
}
