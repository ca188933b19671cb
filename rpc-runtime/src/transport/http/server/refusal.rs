//! The HTTP server's own refusals: short plain-text answers.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};

use super::ResponseBody;
use super::respond::application_json;
use crate::transport::http::read_body::BoxError;

/// A short plain-text answer for an HTTP-level refusal.
pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::from(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cold]
pub(crate) fn method_not_allowed() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::METHOD_NOT_ALLOWED,
        "JSON-RPC requests are sent with POST.\n",
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// A browser request (or WebSocket handshake) from a page whose origin may
/// not call this server.
#[cold]
pub(crate) fn origin_refused() -> Response<ResponseBody> {
    plain(
        StatusCode::FORBIDDEN,
        "This origin may not call this server.\n",
    )
}

#[cold]
pub(super) fn unsupported_media_type() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "The body must be JSON in UTF-8, not compressed: send Content-Type: application/json \
         (with curl: --json, or -H 'Content-Type: application/json').\n",
    );
    response
        .headers_mut()
        .insert(header::ACCEPT, application_json());
    response
}

#[cold]
pub(super) fn too_large() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        "The request body is over the server's size limit.\n",
    );
    // The rest of the body is never read, so the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cold]
pub(super) fn unreadable(err: &BoxError) -> Response<ResponseBody> {
    tracing::debug!(%err, "could not read an HTTP request body");
    plain(
        StatusCode::BAD_REQUEST,
        "The request body could not be read.\n",
    )
}

#[cold]
pub(super) fn body_timed_out() -> Response<ResponseBody> {
    let mut response = plain(
        StatusCode::REQUEST_TIMEOUT,
        "The request body did not arrive in time.\n",
    );
    // The rest of the body is never read, so the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
