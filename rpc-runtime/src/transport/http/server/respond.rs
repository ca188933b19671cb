//! Answering one HTTP request: the checks, the body, the router.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::body::Body;

use super::ResponseBody;
use super::accept::{Answers, negotiate};
use super::checks::{is_json_unencoded, is_websocket_upgrade};
use super::cors::Admission;
use super::forwarded;
use super::refusal::{
    body_timed_out, method_not_allowed, too_large, unreadable, unsupported_media_type,
};
use super::service::{Handover, Shared};
use crate::Context;
use crate::transport::http::read_body::{BodyError, BoxError, read_whole};
use crate::transport::http::sse;
use crate::transport::sync::rare_events::{self};

/// Where a request came from, as [`respond`] needs to know it: a
/// connection of [`Server::serve_http`](crate::transport::Server::serve_http), or an [`HttpService`](super::HttpService) mounted
/// elsewhere. One generic `respond` rather than a wrapper per origin: a
/// future awaiting another holds (and copies) the other whole.
pub(super) trait Origin {
    fn shared(&self) -> &Shared;
    fn peer(&self) -> Option<SocketAddr>;
    /// Where a WebSocket handshake leaves its session; `None`: spawn it.
    fn handover(&self) -> Option<&Handover>;
    /// The request's headers are in.
    fn serving(&self) {}
    /// The response is ready.
    fn answered(&self) {}
    /// What to run once a response whose body outlives [`respond`] (an
    /// event stream) has ended: the same as [`answered`](Origin::answered),
    /// later. Until then the connection counts as serving a request.
    fn answered_later(&self) -> AnsweredLater {
        AnsweredLater(None)
    }
}

/// See [`Origin::answered_later`]: runs once, when called or dropped, so a
/// response dropped before its end (its client gone) still counts as
/// answered.
pub(in crate::transport::http) struct AnsweredLater(Option<Box<dyn FnOnce() + Send>>);

impl AnsweredLater {
    pub(in crate::transport::http) fn new(answered: impl FnOnce() + Send + 'static) -> Self {
        AnsweredLater(Some(Box::new(answered)))
    }
}

impl Drop for AnsweredLater {
    fn drop(&mut self) {
        if let Some(answered) = self.0.take() {
            answered();
        }
    }
}

/// A request its origin counts as being served, from its headers until
/// the guard is dropped: when the response is made, or when the request's
/// future is dropped first (an HTTP/2 stream its client reset, a
/// connection gone), so that a connection never counts a request that is
/// gone as busy.
struct Serving<'a, O: Origin> {
    origin: &'a O,
    /// Whether the drop still owes the origin its `answered`.
    owed: bool,
}

impl<'a, O: Origin> Serving<'a, O> {
    fn begin(origin: &'a O) -> Self {
        origin.serving();
        Serving { origin, owed: true }
    }

    /// The response outlives the request's future (an event stream): it
    /// is answered when the stream ends, by what this returns.
    fn later(mut self) -> AnsweredLater {
        self.owed = false;
        self.origin.answered_later()
    }
}

impl<O: Origin> Drop for Serving<'_, O> {
    fn drop(&mut self) {
        if self.owed {
            self.origin.answered();
        }
    }
}

/// Answers one HTTP request. A WebSocket handshake's session is left with
/// the origin's handover when it has one (`serve_http`), and spawned
/// otherwise.
///
/// A plain `fn` around an `async` block, which holds the request once (an
/// `async fn` holds its arguments twice: captured, then moved to locals);
/// of the request, only the headers outlive the body's read, for the
/// handlers. The size of this future matters: hyper keeps one per
/// connection (in a box made with the connection) and moves each request's
/// into it.
#[allow(clippy::manual_async_fn, reason = "the async fn's future is larger")]
pub(super) fn respond<B, O>(
    origin: O,
    mut request: Request<B>,
) -> impl Future<Output = Result<Response<ResponseBody>, Infallible>>
where
    B: Body,
    B::Error: Into<BoxError>,
    O: Origin,
{
    async move {
        let serving = Serving::begin(&origin);
        let shared = origin.shared();
        // A browser's request is admitted on its `Origin` before anything
        // else, a preflight answered, before any body is read.
        let grant = match shared
            .cors
            .as_deref()
            .map(|cors| cors.admit(request.method(), request.uri(), request.headers()))
        {
            Some(Admission::Answered(response)) => return Ok(response),
            Some(Admission::Serve(grant)) => grant,
            None => None,
        };
        let mut response = 'response: {
            if request.method() != Method::POST {
                // Where WebSocket is not spoken, a handshake is an ordinary `GET`: `405`.
                if let Some(upgrade) = shared.upgrade
                    && request.method() == Method::GET
                    && is_websocket_upgrade(request.headers())
                {
                    let handover = origin.handover();
                    // The body (empty in a handshake) lives on until the
                    // answer is made, as it did inside the request.
                    let (parts, body) = request.into_parts();
                    let response = upgrade(
                        Request::from_parts(parts, ()),
                        shared,
                        origin.peer(),
                        handover,
                    );
                    drop(body);
                    break 'response response;
                }
                break 'response method_not_allowed();
            }
            if !is_json_unencoded(request.headers()) {
                break 'response unsupported_media_type();
            }
            let limit = shared.limits.message_size();
            // The body's declared length (hyper takes it from `Content-Length`).
            if request.body().size_hint().lower() > limit as u64 {
                break 'response too_large();
            }
            let headers = std::mem::take(request.headers_mut());
            let answers = negotiate(&headers);
            let trusted = shared.limits.trusted_proxies();
            let peer = forwarded::client_addr(&headers, origin.peer(), trusted);
            let context = Context::of_http(headers, peer);
            let body = read_whole(request.into_body(), limit);
            let body = match rare_events::timeout(shared.limits.body_wait(), body).await {
                Some(Ok(body)) => body,
                None => break 'response body_timed_out(),
                Some(Err(BodyError::TooLarge { .. })) => break 'response too_large(),
                Some(Err(BodyError::Read(err))) => break 'response unreadable(&err),
            };
            let router = &shared.router;
            let reply = match answers {
                Answers::Events => None,
                // A client that takes events only through a wildcard gets
                // them from a streaming method alone: every other call is
                // answered on the plain path, which costs a fifth less than
                // making ready for events.
                Answers::EventsForStreams if router.streams() => {
                    router.handle_unless_streaming(&body, &context).await
                }
                _ => Some(router.handle_with(&body, &context).await),
            };
            if let Some(reply) = reply {
                break 'response reply_response(reply);
            }
            // Its connection is answered when the stream ends.
            let later = serving.later();
            let notifications = answers == Answers::Events;
            let mut response = sse::answer(shared, body, context, notifications, later).await;
            if let Some(cors) = &shared.cors {
                cors.write_grant(grant, response.headers_mut());
            }
            return Ok(response);
        };
        if let Some(cors) = &shared.cors {
            cors.write_grant(grant, response.headers_mut());
        }
        drop(serving);
        Ok(response)
    }
}

/// The response carrying `reply`: the JSON text, or `204` when there is none.
pub(in crate::transport::http) fn reply_response(reply: Option<String>) -> Response<ResponseBody> {
    match reply {
        Some(reply) => {
            let mut response = Response::new(ResponseBody::from(reply));
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, application_json());
            response
        }
        None => {
            let mut response = Response::new(ResponseBody::empty());
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        }
    }
}

pub(super) fn application_json() -> HeaderValue {
    HeaderValue::from_static("application/json")
}
