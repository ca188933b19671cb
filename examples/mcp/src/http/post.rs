//! Answering a `POST`: a request runs and is answered with JSON, or with
//! an event stream when it sends anything before its reply; a
//! notification or a response (to the server's own request) is taken with
//! `202`. The generation decides the rest: a classic request belongs to
//! its `Mcp-Session-Id`, a 2026-07-28 request to nothing but itself.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use bytes::Bytes;
use http::{HeaderMap, Response, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;
use typed_rpc::{Context, ErrorObject, TransportKind};

use super::events::EventStream;
use super::headers::{self, Message, SESSION_ID};
use super::port::StreamPort;
use super::sessions::HttpSession;
use super::{HttpInner, McpBody, json, refuse, sse};
use crate::ProtocolVersion;
use crate::error;
use crate::server::{Peer, is_stateless};

/// A request's handler, boxed to be polled once in place before it may
/// become a task.
type Handler = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

pub(super) async fn post(
    http: &HttpInner,
    headers: HeaderMap,
    body: Bytes,
    peer: Option<SocketAddr>,
) -> Response<McpBody> {
    let Ok(message) = serde_json::from_slice::<Message<'_>>(&body) else {
        let batch = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
        if batch {
            return classic_batch(http, headers, body, peer).await;
        }
        return json(
            StatusCode::BAD_REQUEST,
            error_text(None, &ErrorObject::parse_error()),
        );
    };
    if is_stateless(message.params) {
        return stateless(http, headers, &body, &message, peer).await;
    }
    let told = headers
        .get(headers::PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok());
    if let Some(told) = told {
        match ProtocolVersion::parse(told) {
            None => {
                return json(
                    StatusCode::BAD_REQUEST,
                    error_text(message.id, &error::unsupported_version(told)),
                );
            }
            Some(version) if version.is_stateless() => {
                let missing = error::missing_meta(crate::types::meta_keys::PROTOCOL_VERSION);
                return json(StatusCode::BAD_REQUEST, error_text(message.id, &missing));
            }
            Some(_) => {}
        }
    }
    let session_id = headers
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let session = match (
        &session_id,
        message.method() == "initialize" && message.is_request(),
    ) {
        (None, true) => match http.sessions.create() {
            Some(session) => {
                session.state.set_outlet(Peer::new(Arc::new(StreamPort::new(
                    session.standalone.clone(),
                    Some(session.clone()),
                ))));
                let response = classic(http, headers, &body, &message, peer, &session).await;
                return initialized(http, &session, response);
            }
            None => {
                return refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server holds as many sessions as it may",
                );
            }
        },
        (None, false) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "Mcp-Session-Id is required: send initialize first",
            );
        }
        (Some(id), _) => match http.sessions.get(id) {
            Some(session) => session,
            None => {
                return refuse(
                    StatusCode::NOT_FOUND,
                    "no such session: it ended, or never was",
                );
            }
        },
    };
    classic(http, headers, &body, &message, peer, &session).await
}

/// The answer to `initialize`, naming its new session; the session ends
/// at once when `initialize` failed.
fn initialized(
    http: &HttpInner,
    session: &HttpSession,
    mut response: Response<McpBody>,
) -> Response<McpBody> {
    if session.state.is_initialized() {
        if let Ok(id) = http::HeaderValue::from_str(&session.id) {
            response.headers_mut().insert(SESSION_ID, id);
        }
    } else {
        http.sessions.remove(&session.id);
    }
    response
}

async fn classic(
    http: &HttpInner,
    headers: HeaderMap,
    body: &Bytes,
    message: &Message<'_>,
    peer: Option<SocketAddr>,
    session: &Arc<HttpSession>,
) -> Response<McpBody> {
    if message.is_response() {
        if let Some(id) = message.id.and_then(|id| id.get().parse::<u64>().ok()) {
            session.answer(id, String::from_utf8_lossy(body).into_owned());
        }
        return accepted();
    }
    if !message.is_request() {
        if message.method() == "notifications/cancelled" {
            if let Some(id) = cancelled_id(message.params) {
                session.cancel(&id);
            }
            return accepted();
        }
        let cx = context(headers, peer, Some(session), Peer::default());
        http.router.handle_with(body, &cx).await;
        return accepted();
    }
    request(http, headers, body, message, peer, Some(session)).await
}

async fn stateless(
    http: &HttpInner,
    headers: HeaderMap,
    body: &Bytes,
    message: &Message<'_>,
    peer: Option<SocketAddr>,
) -> Response<McpBody> {
    let checked = headers::check_mirrored(&headers, message)
        .and_then(|()| check_arguments(http, &headers, message));
    if let Err(err) = checked {
        return json(StatusCode::BAD_REQUEST, error_text(message.id, &err));
    }
    if !message.is_request() {
        let cx = context(headers, peer, None, Peer::default());
        http.router.handle_with(body, &cx).await;
        return accepted();
    }
    request(http, headers, body, message, peer, None).await
}

/// Checks a `tools/call`'s `Mcp-Param-*` headers against the arguments
/// its tool mirrors.
fn check_arguments(
    http: &HttpInner,
    headers: &HeaderMap,
    message: &Message<'_>,
) -> Result<(), ErrorObject> {
    #[derive(Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        #[serde(borrow, default)]
        arguments: Option<&'a RawValue>,
    }
    if message.method() != "tools/call" {
        return Ok(());
    }
    let Some(call) = message
        .params
        .and_then(|params| serde_json::from_str::<Call<'_>>(params.get()).ok())
    else {
        return Ok(());
    };
    let mirrored = http.server.mirrored(&call.name);
    if mirrored.is_empty() {
        return Ok(());
    }
    let arguments = call
        .arguments
        .and_then(|arguments| serde_json::from_str(arguments.get()).ok());
    crate::mirrored::check(headers, mirrored, arguments.as_ref())
}

/// Runs the request `body` and answers it: within `session` (its stream
/// kept for resumption, the request registered for cancellation), or
/// standing alone (2026-07-28: it stops when its client leaves).
async fn request(
    http: &HttpInner,
    headers: HeaderMap,
    body: &Bytes,
    message: &Message<'_>,
    peer: Option<SocketAddr>,
    session: Option<&Arc<HttpSession>>,
) -> Response<McpBody> {
    let (json_ok, events_ok) = headers::accepts(&headers);
    if !json_ok && !events_ok {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "accept application/json or text/event-stream",
        );
    }
    let stream = match session {
        Some(session) => session.open_stream(),
        None => EventStream::new(1, false),
    };
    // A client that takes no event stream gets no message but the reply.
    let way_back = match events_ok {
        true => Peer::new(Arc::new(StreamPort::new(stream.clone(), session.cloned()))),
        false => Peer::default(),
    };
    let cx = context(headers, peer, session, way_back);
    let handler = handler(http, body.clone(), cx);
    let key = message.id.map(|id| id.get().to_owned()).unwrap_or_default();
    // Version 2025-11-25 clients expect a first event with an id and no
    // data; earlier ones might not.
    let prime = session
        .and_then(|session| session.state.negotiated())
        .is_some_and(|n| n.version >= ProtocolVersion::V2025_11_25);
    let registered = session.map(|session| (session.clone(), key));
    run(
        handler,
        stream,
        registered,
        json_ok,
        prime,
        session.is_none(),
    )
    .await
}

/// A batch (2025-03-26 allowed them): run whole, within its session.
async fn classic_batch(
    http: &HttpInner,
    headers: HeaderMap,
    body: Bytes,
    peer: Option<SocketAddr>,
) -> Response<McpBody> {
    let id = headers
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let Some(session) = id.and_then(|id| http.sessions.get(&id)) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "a batch needs an initialized session",
        );
    };
    let cx = context(headers, peer, Some(&session), Peer::default());
    match http.router.handle_with(&body, &cx).await {
        Some(reply) => json(StatusCode::OK, reply),
        None => accepted(),
    }
}

/// The context of a request's handler.
fn context(
    headers: HeaderMap,
    peer: Option<SocketAddr>,
    session: Option<&Arc<HttpSession>>,
    way_back: Peer,
) -> Context {
    let mut cx = Context::new(TransportKind::Http).with_headers(headers);
    if let Some(peer) = peer {
        cx = cx.with_remote_addr(peer);
    }
    if let Some(session) = session {
        cx.extensions_mut().insert(session.state.clone());
    }
    cx.extensions_mut().insert(way_back);
    cx
}

fn handler(http: &HttpInner, body: Bytes, cx: Context) -> Handler {
    let router = http.router.clone();
    Box::pin(async move { router.handle_with(&body, &cx).await })
}

/// Runs `handler`, whose messages go on `stream`, and answers: with JSON
/// when the reply is all it sends (and `json_ok`), else with the stream.
/// A classic request is registered in its session for cancellation; a
/// stateless one (`cancel_on_leave`) stops when its client leaves.
async fn run(
    mut handler: Handler,
    stream: Arc<EventStream>,
    registered: Option<(Arc<HttpSession>, String)>,
    json_ok: bool,
    prime: bool,
    cancel_on_leave: bool,
) -> Response<McpBody> {
    // Most requests finish at once: answered without a task.
    let first = std::future::poll_fn(|cx| Poll::Ready(handler.as_mut().poll(cx))).await;
    if let Poll::Ready(reply) = first {
        stream.finish(reply);
    } else {
        let finishing = stream.clone();
        let unregister = registered.clone();
        let task = tokio::spawn(async move {
            let finish = FinishOnDrop(finishing);
            let reply = handler.await;
            finish.0.finish(reply);
            if let Some((session, key)) = unregister {
                session.finished(&key);
            }
        });
        if let Some((session, key)) = registered {
            session.started(key, task.abort_handle());
        }
        if cancel_on_leave {
            stream.abort_when_abandoned(task.abort_handle());
        }
        // The client gone before the answer is decided: a stateless
        // request stops; a classic one runs on, its stream kept.
        let mut leaving = AbortOnDrop(cancel_on_leave.then(|| task.abort_handle()));
        stream.settled().await;
        leaving.0 = None;
    }
    if json_ok && let Some(reply) = stream.only_reply() {
        return reply_response(&reply, cancel_on_leave);
    }
    sse(stream.reader(0, prime))
}

/// Ends a stream whose handler is dropped (cancelled) without a reply.
struct FinishOnDrop(Arc<EventStream>);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.finish(None);
    }
}

/// Aborts a task when dropped (its request's client left), unless disarmed.
struct AbortOnDrop(Option<tokio::task::AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// The JSON response carrying `reply`; a stateless request's protocol
/// errors get the HTTP status the specification gives them.
fn reply_response(reply: &str, stateless: bool) -> Response<McpBody> {
    let status = match stateless {
        true => status_of(reply),
        false => StatusCode::OK,
    };
    json(status, reply.to_owned())
}

/// The status of a 2026-07-28 reply: `400` for a malformed request, an
/// unsupported version, a missing capability or mismatched headers;
/// `404` for an unknown method.
fn status_of(reply: &str) -> StatusCode {
    #[derive(Deserialize)]
    struct Failure<'a> {
        #[serde(borrow)]
        error: Option<FailureError<'a>>,
    }
    #[derive(Deserialize)]
    struct FailureError<'a> {
        code: i64,
        #[serde(borrow, default)]
        data: Option<&'a RawValue>,
    }
    let Ok(Failure { error: Some(err) }) = serde_json::from_str::<Failure<'_>>(reply) else {
        return StatusCode::OK;
    };
    let malformed = err.code == typed_rpc::code::INVALID_PARAMS
        && err
            .data
            .is_some_and(|data| data.get().contains(r#""param":"_meta""#));
    match err.code {
        typed_rpc::code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        typed_rpc::code::INVALID_REQUEST
        | error::code::UNSUPPORTED_PROTOCOL_VERSION
        | error::code::MISSING_REQUIRED_CLIENT_CAPABILITY
        | error::code::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        _ if malformed => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// The id a `notifications/cancelled` names, as JSON text.
fn cancelled_id(params: Option<&RawValue>) -> Option<String> {
    #[derive(Deserialize)]
    struct Cancelled<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: &'a RawValue,
    }
    let params: Cancelled<'_> = serde_json::from_str(params?.get()).ok()?;
    Some(params.request_id.get().to_owned())
}

/// The text of an error response to the request `id` (`null` when unknown).
pub(super) fn error_text(id: Option<&RawValue>, error: &ErrorObject) -> String {
    let id = id.map_or("null", RawValue::get);
    let error = serde_json::to_string(error).unwrap_or_default();
    format!(r#"{{"jsonrpc":"2.0","error":{error},"id":{id}}}"#)
}

fn accepted() -> Response<McpBody> {
    let mut response = Response::new(McpBody::empty());
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}
