//! The `tracing` span of a call the generated client makes.

use std::future::Future;

use tracing::field::Empty;
use tracing::{Instrument, Span};

use super::ClientError;

/// Runs `call`, the client's call of `method`, in a span `rpc.call` with
/// `otel.kind = "client"` and the attributes of the server's (see
/// [`middleware`](crate::middleware)), when a subscriber wants the target
/// `typed_rpc::client`; its error is recorded there. The transport
/// allocates the id, so `rpc.jsonrpc.request_id` is not among them.
pub(crate) async fn traced<T>(
    method: &str,
    call: impl Future<Output = Result<T, ClientError>>,
) -> Result<T, ClientError> {
    let span = tracing::info_span!(
        target: "typed_rpc::client",
        "rpc.call",
        otel.kind = "client",
        otel.name = method,
        otel.status_code = Empty,
        rpc.system = "jsonrpc",
        rpc.method = method,
        rpc.jsonrpc.version = "2.0",
        rpc.jsonrpc.error_code = Empty,
        rpc.jsonrpc.error_message = Empty,
        "error.type" = Empty,
    );
    if span.is_disabled() {
        return call.await;
    }
    let result = call.instrument(span.clone()).await;
    if let Err(err) = &result {
        record_error(&span, err);
    }
    result
}

fn record_error(span: &Span, err: &ClientError) {
    span.record("otel.status_code", "ERROR");
    span.record(
        "error.type",
        match err {
            ClientError::Transport(_) => "transport",
            ClientError::Http(_) => "http",
            ClientError::Rpc(_) => "jsonrpc",
            ClientError::Decode(_) => "decode",
            ClientError::Encode(_) => "encode",
        },
    );
    if let Some(error) = err.rpc_error() {
        span.record("rpc.jsonrpc.error_code", error.code());
        span.record("rpc.jsonrpc.error_message", error.message());
    }
}
