//! The client's side of Streamable HTTP: each message a `POST`, its answer
//! read from JSON or from an event stream (where the server's own requests
//! are answered on the way, by `POST`s back), the classic session's id and
//! version sent on every request, the 2026-07-28 generation's mirrored
//! headers added, and `DELETE` to end a session.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::value::RawValue;
use typed_rpc::client::{HttpError, OutgoingRequest, TransportError, TransportErrorKind};
use typed_rpc::{ClientError, Context, Router, TransportKind};

use super::events::Events;
use crate::mirrored::{self, Mirrored};

/// The largest event or response read.
const MAX_MESSAGE: usize = 16 << 20;

/// How many times in a row a stream that ended early is resumed without
/// a new event.
const MAX_RESUMES: usize = 5;

/// The wait before resuming a stream when the server named none, and
/// the longest wait honoured.
const RETRY: Duration = Duration::from_secs(1);
const MAX_RETRY: Duration = Duration::from_secs(30);

/// A Streamable HTTP connection to one endpoint.
pub(crate) struct HttpLink {
    client: HyperClient<HttpConnector, Full<Bytes>>,
    url: http::Uri,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
    /// Whether requests carry the 2026-07-28 generation's headers.
    stateless: Mutex<bool>,
    /// Answers the server's requests and takes its notifications.
    handlers: Router,
    next_id: AtomicU64,
    timeout: Option<Duration>,
    /// The tools' arguments mirrored into headers, as last listed.
    mirrored: Mutex<HashMap<String, Arc<[Mirrored]>>>,
}

fn transport_error(
    kind: TransportErrorKind,
    err: impl std::error::Error + Send + Sync + 'static,
) -> ClientError {
    ClientError::Transport(TransportError::with_source(kind, err))
}

impl HttpLink {
    pub(crate) fn new(
        url: &str,
        handlers: Router,
        timeout: Option<Duration>,
    ) -> Result<Self, ClientError> {
        let url: http::Uri = url
            .parse()
            .map_err(|err| transport_error(TransportErrorKind::Connect, err))?;
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        Ok(HttpLink {
            client: HyperClient::builder(TokioExecutor::new()).build(connector),
            url,
            session: Mutex::new(None),
            version: Mutex::new(None),
            stateless: Mutex::new(false),
            handlers,
            next_id: AtomicU64::new(1),
            timeout,
            mirrored: Mutex::new(HashMap::new()),
        })
    }

    /// Sends every later request as of the protocol `version` (and, for
    /// 2026-07-28, with its mirrored headers).
    pub(crate) fn set_version(&self, version: &str, stateless: bool) {
        *lock(&self.version) = HeaderValue::from_str(version).ok();
        *lock(&self.stateless) = stateless;
    }

    /// Learns which arguments of the tool `name` travel in headers too.
    pub(crate) fn learn(&self, name: &str, mirrored: Vec<Mirrored>) {
        let mut known = lock(&self.mirrored);
        match mirrored.is_empty() {
            true => known.remove(name),
            false => known.insert(name.to_owned(), mirrored.into()),
        };
    }

    /// Posts `body`, the message `request` is, with the headers it needs.
    async fn post(
        &self,
        request: &OutgoingRequest<'_>,
        body: String,
    ) -> Result<hyper::Response<Incoming>, ClientError> {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(self.url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(session) = lock(&self.session).clone() {
            builder = builder.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&self.version).clone() {
            builder = builder.header("mcp-protocol-version", version);
        }
        if *lock(&self.stateless) {
            builder = builder.header("mcp-method", request.method());
            for (name, value) in self.mirrored_headers(request) {
                builder = builder.header(name, value);
            }
        }
        let post = builder
            .body(Full::new(Bytes::from(body)))
            .map_err(|err| transport_error(TransportErrorKind::Io, err))?;
        let sending = self.client.request(post);
        self.within_timeout(sending)
            .await?
            .map_err(|err| transport_error(TransportErrorKind::Connect, err))
    }

    /// Sends a request and reads its response's text.
    pub(crate) async fn request(
        &self,
        request: OutgoingRequest<'_>,
    ) -> Result<String, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let response = self.post(&request, request.to_text(Some(id))).await?;
        if let Some(session) = response.headers().get("mcp-session-id") {
            *lock(&self.session) = Some(session.clone());
        }
        let events = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let status = response.status();
        let reading = async {
            match events && status.is_success() {
                true => self.read_events(response.into_body(), id).await,
                false => self.read_json(status, response.into_body()).await,
            }
        };
        self.within_timeout(reading).await?
    }

    /// Awaits `work`, for the link's timeout at most.
    async fn within_timeout<T>(&self, work: impl Future<Output = T>) -> Result<T, ClientError> {
        match self.timeout {
            Some(limit) => tokio::time::timeout(limit, work).await.map_err(|_| {
                ClientError::Transport(TransportError::new(TransportErrorKind::Timeout))
            }),
            None => Ok(work.await),
        }
    }

    /// A JSON answer: the response, also when the status is an error that
    /// carries one (the 2026-07-28 generation's `400`s and `404`s).
    async fn read_json(&self, status: StatusCode, body: Incoming) -> Result<String, ClientError> {
        let bytes = http_body_util::Limited::new(body, MAX_MESSAGE)
            .collect()
            .await
            .map_err(|err| {
                ClientError::Transport(TransportError::with_source(
                    TransportErrorKind::Io,
                    std::io::Error::other(err.to_string()),
                ))
            })?
            .to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let is_response = serde_json::from_str::<Probe<'_>>(&text).is_ok_and(|p| p.is_response());
        if status.is_success() || is_response {
            return Ok(text);
        }
        Err(ClientError::Http(HttpError::new(
            status.as_u16(),
            None,
            text,
        )))
    }

    /// An event stream: its events read until the response to `id`; the
    /// server's requests on the way are answered, its notifications taken.
    /// A stream that ends before the response is resumed with a `GET`
    /// after its last event id, once the server's `retry` has passed.
    async fn read_events(&self, mut body: Incoming, id: u64) -> Result<String, ClientError> {
        let mut events = Events::default();
        // Resumes that brought no new event, in a row: a server polling a
        // long call ends streams often, one that cannot resume it keeps
        // sending none.
        let mut fruitless = 0;
        let mut resumed_after = None::<String>;
        loop {
            if let Some(response) = self.read_stream(&mut events, body, id).await? {
                return Ok(response);
            }
            let closed = || ClientError::Transport(TransportError::new(TransportErrorKind::Closed));
            let last = events.last_id().ok_or_else(closed)?.to_owned();
            fruitless = match resumed_after.as_deref() == Some(last.as_str()) {
                true => fruitless + 1,
                false => 0,
            };
            if fruitless == MAX_RESUMES {
                return Err(closed());
            }
            resumed_after = Some(last.clone());
            events.connection_ended();
            tokio::time::sleep(events.retry().unwrap_or(RETRY).min(MAX_RETRY)).await;
            let response = self.open_stream(Some(&last)).await?;
            if !response.status().is_success() {
                return Err(ClientError::Http(HttpError::new(
                    response.status().as_u16(),
                    None,
                    "",
                )));
            }
            body = response.into_body();
        }
    }

    /// Reads one connection's events until the response to `id` (`Some`)
    /// or the connection's end (`None`).
    async fn read_stream(
        &self,
        events: &mut Events,
        mut body: Incoming,
        id: u64,
    ) -> Result<Option<String>, ClientError> {
        loop {
            for event in events.take() {
                if let Some(response) = self.take_event(&event, id).await {
                    return Ok(Some(response));
                }
            }
            if events.pending() > MAX_MESSAGE {
                return Err(ClientError::Transport(TransportError::new(
                    TransportErrorKind::Refused,
                )));
            }
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Some(bytes) = frame.data_ref() {
                        events.extend(bytes);
                    }
                }
                Some(Err(_)) | None => return Ok(None),
            }
        }
    }

    /// A `GET` of the session's stream: the stream of the session, or the
    /// rest of the stream whose last event was `last_event_id`.
    async fn open_stream(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<hyper::Response<Incoming>, ClientError> {
        let mut request = Request::builder()
            .method(Method::GET)
            .uri(self.url.clone())
            .header(header::ACCEPT, "text/event-stream");
        if let Some(session) = lock(&self.session).clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = lock(&self.version).clone() {
            request = request.header("mcp-protocol-version", version);
        }
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last);
        }
        let request = request
            .body(Full::new(Bytes::new()))
            .map_err(|err| transport_error(TransportErrorKind::Io, err))?;
        let opening = self.client.request(request);
        self.within_timeout(opening)
            .await?
            .map_err(|err| transport_error(TransportErrorKind::Connect, err))
    }

    /// Acts on one event: the response to `id` is returned; a request of
    /// the server is answered; a notification goes to the handlers.
    async fn take_event(&self, event: &str, id: u64) -> Option<String> {
        if event.trim().is_empty() {
            return None;
        }
        let probe: Probe<'_> = serde_json::from_str(event).ok()?;
        if probe.is_response() {
            return (probe.id.and_then(|i| i.get().parse::<u64>().ok()) == Some(id))
                .then(|| event.to_owned());
        }
        let cx = Context::new(TransportKind::Http);
        let answer = self.handlers.handle_with(event.as_bytes(), &cx).await;
        if let Some(answer) = answer {
            let request = OutgoingRequest::new("", None);
            if let Err(err) = self.post(&request, answer).await {
                tracing::debug!(%err, "an answer to the server could not be sent");
            }
        }
        None
    }

    /// Opens the classic session's own stream (`GET`), where the server
    /// sends what no request of the client asked for (its requests among
    /// them), and reads it until the session or the link ends, answering
    /// the server's requests as they come; a stream the server ends is
    /// opened again after its last event (the server polls so). A server
    /// without one (`405`) is fine. Resolves once the server has answered
    /// the first `GET`, so that nothing it sends there is missed.
    pub(crate) fn listen(self: &Arc<Self>) -> tokio::sync::oneshot::Receiver<()> {
        let (opened, on_open) = tokio::sync::oneshot::channel();
        if lock(&self.session).is_none() {
            return on_open;
        }
        let link = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut opened = Some(opened);
            let mut events = Events::default();
            let mut last = None::<String>;
            loop {
                let Some(strong) = link.upgrade() else { return };
                let response = strong.open_stream(last.as_deref()).await;
                drop(strong);
                opened.take().map(|opened| opened.send(()));
                let Ok(response) = response else { return };
                if !response.status().is_success() {
                    return;
                }
                let mut body = response.into_body();
                while let Some(Ok(frame)) = body.frame().await {
                    let Some(strong) = link.upgrade() else { return };
                    let Some(bytes) = frame.data_ref() else {
                        continue;
                    };
                    for event in events.push(bytes) {
                        strong.take_event(&event, 0).await;
                    }
                }
                // Ended by the server: again after its last event, if it
                // named one (else it wants no more).
                let Some(id) = events.last_id() else { return };
                last = Some(id.to_owned());
                events.connection_ended();
                tokio::time::sleep(events.retry().unwrap_or(RETRY).min(MAX_RETRY)).await;
            }
        });
        on_open
    }

    /// Sends a notification (answered `202`).
    pub(crate) async fn notify(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        let response = self.post(&notification, notification.to_text(None)).await?;
        match response.status().is_success() {
            true => Ok(()),
            false => Err(ClientError::Http(HttpError::new(
                response.status().as_u16(),
                None,
                "",
            ))),
        }
    }

    /// Ends the classic session, if there is one.
    pub(crate) async fn close(&self) {
        let Some(session) = lock(&self.session).take() else {
            return;
        };
        let request = Request::builder()
            .method(Method::DELETE)
            .uri(self.url.clone())
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()));
        if let Ok(request) = request {
            let _ = self.client.request(request).await;
        }
    }
}

/// A message as far as telling responses from the rest needs.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

impl Probe<'_> {
    fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }
}

impl HttpLink {
    /// The headers mirroring what `request` names (`Mcp-Name`: the
    /// tool, prompt or resource) and the arguments of a tool its schema
    /// marks (`Mcp-Param-*`).
    fn mirrored_headers(&self, request: &OutgoingRequest<'_>) -> Vec<(String, String)> {
        #[derive(Deserialize)]
        struct Named<'a> {
            name: Option<String>,
            uri: Option<String>,
            #[serde(borrow, default)]
            arguments: Option<&'a RawValue>,
        }
        let params = match request.method() {
            "tools/call" | "prompts/get" | "resources/read" => request.params(),
            _ => None,
        };
        let Some(named) = params.and_then(|p| serde_json::from_str::<Named<'_>>(p.as_json()).ok())
        else {
            return Vec::new();
        };
        let marked = match (request.method(), &named.name) {
            ("tools/call", Some(tool)) => lock(&self.mirrored).get(tool).cloned(),
            _ => None,
        };
        let mut headers = match (marked, named.arguments) {
            (Some(marked), Some(arguments)) => {
                let arguments = serde_json::from_str(arguments.get()).ok();
                mirrored::headers(&marked, arguments.as_ref())
            }
            _ => Vec::new(),
        };
        if let Some(value) = named.name.or(named.uri) {
            headers.push(("mcp-name".to_owned(), mirrored::encode(&value)));
        }
        headers
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
