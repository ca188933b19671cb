//! Delivering task updates to webhooks in the background: a bounded queue
//! and one sender task per webhook of a task, so updates reach each webhook
//! in order, and a slow or dead one holds up nothing but itself. An update
//! leaves the push store's outbox when it is delivered, given up or dropped.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use typed_rpc::transport::tls::ClientTlsConfig;

use super::push::PushSettings;
use super::push_store::DynPushConfigStore;
use super::store::Seq;
use crate::types::TaskPushNotificationConfig;

/// The header carrying a configuration's `token`, as the reference SDK sends it.
pub const TOKEN_HEADER: &str = "x-a2a-notification-token";

/// The media type of a webhook body, a `StreamResponse`.
const BODY_TYPE: &str = "application/a2a+json";

/// How much of a webhook's answer is read (so its connection can be reused).
const ANSWER_LIMIT: usize = 64 * 1024;

/// One pool for `http://` and `https://` webhooks alike.
type HttpClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The webhooks' queues, by task and configuration id.
pub(crate) struct PushSender {
    client: HttpClient,
    /// Why `https://` webhooks cannot be reached (no trusted roots), if so.
    no_tls: Option<String>,
    settings: Arc<PushSettings>,
    /// Where updates are held until they leave their queues.
    outbox: Arc<dyn DynPushConfigStore>,
    routes: Mutex<HashMap<(String, String), Route>>,
}

/// An update of a task on its way to one webhook: the event `seq`, as POSTed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Outgoing {
    pub(crate) seq: Seq,
    pub(crate) body: Bytes,
}

/// One webhook's queue and the task sending from it.
struct Route {
    queue: Arc<Queue>,
    sender: AbortHandle,
}

/// Updates waiting for one webhook, the oldest dropped when full.
struct Queue {
    bodies: Mutex<VecDeque<Outgoing>>,
    ready: Notify,
    /// No more updates come: send what is queued, then stop.
    closed: AtomicBool,
}

impl PushSender {
    /// A sender trusting the webhooks the settings' TLS roots vouch for
    /// (by default the system's, read once per process).
    pub(crate) fn new(settings: PushSettings, outbox: Arc<dyn DynPushConfigStore>) -> Self {
        let (tls, no_tls) = match settings
            .tls
            .clone()
            .map_or_else(ClientTlsConfig::system_roots, Ok)
        {
            Ok(tls) => (tls, None),
            Err(err) => (ClientTlsConfig::new(), Some(err.to_string())),
        };
        let mut tcp = HttpConnector::new();
        tcp.set_nodelay(true);
        // The TLS connector sees `https://` URLs through to the TCP one.
        tcp.enforce_http(false);
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(tls.to_rustls())
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        PushSender {
            client: Client::builder(TokioExecutor::new()).build(connector),
            no_tls,
            settings: Arc::new(settings),
            outbox,
            routes: Mutex::default(),
        }
    }

    /// Why `config` is refused as a webhook, naming the member at fault:
    /// the settings' policy, or an `https://` URL when no roots are trusted.
    pub(crate) fn refusal(&self, config: &TaskPushNotificationConfig) -> Option<(&str, String)> {
        if let Some(refused) = self.settings.refusal(config) {
            return Some(refused);
        }
        match &self.no_tls {
            Some(why)
                if config
                    .url
                    .get(..8)
                    .is_some_and(|s| s.eq_ignore_ascii_case("https://")) =>
            {
                Some((
                    "url",
                    format!("https webhooks cannot be reached here: {why}"),
                ))
            }
            _ => None,
        }
    }

    /// Queues `update`, of the task `task_id`, for each of its webhooks
    /// `configs`. After the task's `last` update, its queues close and
    /// their senders stop once they have sent what is queued.
    pub(crate) fn send(
        &self,
        task_id: &str,
        configs: &[TaskPushNotificationConfig],
        update: Outgoing,
        last: bool,
    ) {
        let mut routes = self.routes.lock().expect("push routes poisoned");
        let mut left = Vec::new();
        for config in configs {
            let key = (task_id.to_owned(), config.id.clone().unwrap_or_default());
            let route = match routes.get(&key) {
                Some(route) => route,
                None => match self.route(task_id, config) {
                    Some(route) => routes.entry(key.clone()).or_insert(route),
                    None => {
                        // A URL the policy no longer takes: never sent.
                        left.push((key.1, update.seq));
                        continue;
                    }
                },
            };
            if let Some(dropped) = route.queue.push(update.clone(), self.settings.queue) {
                left.push((key.1, dropped.seq));
            }
        }
        self.release(task_id, left);
        if last {
            routes.retain(|(task, _), route| {
                let keep = task != task_id;
                if !keep {
                    route.queue.close();
                }
                keep
            });
        }
    }

    /// Stops delivering to the webhook `id` of the task `task_id`, dropping what is queued.
    pub(crate) fn forget(&self, task_id: &str, id: &str) {
        let key = (task_id.to_owned(), id.to_owned());
        if let Some(route) = self
            .routes
            .lock()
            .expect("push routes poisoned")
            .remove(&key)
        {
            route.sender.abort();
        }
    }

    /// Takes the updates `left` (config id, event) of the task `task_id`
    /// out of the outbox, in the background: they will not be sent.
    fn release(&self, task_id: &str, left: Vec<(String, Seq)>) {
        if left.is_empty() {
            return;
        }
        let (outbox, task_id) = (self.outbox.clone(), task_id.to_owned());
        tokio::spawn(async move {
            for (config_id, seq) in left {
                let _ = outbox.release(&task_id, &config_id, seq).await;
            }
        });
    }

    /// A queue for `config` of the task `task_id` and the task that sends
    /// from it; `None` for a URL the policy no longer takes.
    fn route(&self, task_id: &str, config: &TaskPushNotificationConfig) -> Option<Route> {
        let webhook = Webhook::new(config, self.settings.webhook_uri(&config.url).ok()?)?;
        let queue = Arc::new(Queue {
            bodies: Mutex::default(),
            ready: Notify::new(),
            closed: AtomicBool::new(false),
        });
        let (client, settings, from) = (self.client.clone(), self.settings.clone(), queue.clone());
        let (outbox, task_id) = (self.outbox.clone(), task_id.to_owned());
        let config_id = config.id.clone().unwrap_or_default();
        let sender = tokio::spawn(async move {
            while let Some(update) = from.next().await {
                webhook.deliver(&client, &settings, update.body).await;
                // Delivered or given up: either way, done with.
                let _ = outbox.release(&task_id, &config_id, update.seq).await;
            }
        });
        Some(Route {
            queue,
            sender: sender.abort_handle(),
        })
    }
}

impl Queue {
    /// Queues `update`; the oldest queued one when the queue was full.
    fn push(&self, update: Outgoing, capacity: usize) -> Option<Outgoing> {
        let mut bodies = self.bodies.lock().expect("push queue poisoned");
        let dropped = (bodies.len() >= capacity)
            .then(|| bodies.pop_front())
            .flatten();
        bodies.push_back(update);
        drop(bodies);
        self.ready.notify_one();
        dropped
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.ready.notify_one();
    }

    /// The oldest queued update; `None` once closed and empty.
    async fn next(&self) -> Option<Outgoing> {
        loop {
            if let Some(body) = self.bodies.lock().expect("push queue poisoned").pop_front() {
                return Some(body);
            }
            if self.closed.load(Ordering::Acquire) {
                return None;
            }
            // `notify_one` keeps a permit when no one waits, so a push
            // between the check above and this wait is not missed.
            self.ready.notified().await;
        }
    }
}

/// Where and how one configuration's updates are POSTed.
struct Webhook {
    uri: Uri,
    token: Option<HeaderValue>,
    authorization: Option<HeaderValue>,
}

impl Webhook {
    /// `None` when a header would be invalid (the handler refuses those first).
    fn new(config: &TaskPushNotificationConfig, uri: Uri) -> Option<Self> {
        let token = match &config.token {
            Some(token) => Some(HeaderValue::from_str(token).ok()?),
            None => None,
        };
        let authorization = match &config.authentication {
            Some(auth) => {
                let credentials = auth.credentials.as_deref().unwrap_or_default();
                Some(HeaderValue::from_str(&format!("{} {credentials}", auth.scheme)).ok()?)
            }
            None => None,
        };
        Some(Webhook {
            uri,
            token,
            authorization,
        })
    }

    fn request(&self, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::post(self.uri.clone())
            .header(header::CONTENT_TYPE, BODY_TYPE)
            .body(Full::new(body))
            .expect("a request of checked parts builds");
        let headers = request.headers_mut();
        if let Some(token) = &self.token {
            headers.insert(TOKEN_HEADER, token.clone());
        }
        if let Some(authorization) = &self.authorization {
            headers.insert(header::AUTHORIZATION, authorization.clone());
        }
        request
    }

    /// POSTs `body`, retrying as `settings` say; gives up after the last attempt.
    async fn deliver(&self, client: &HttpClient, settings: &PushSettings, body: Bytes) {
        let mut backoff = settings.first_backoff;
        for attempt in 1..=settings.attempts {
            let answered = tokio::time::timeout(settings.timeout, async {
                let answer = client.request(self.request(body.clone())).await.ok()?;
                let status = answer.status();
                let _ = Limited::new(answer.into_body(), ANSWER_LIMIT)
                    .collect()
                    .await;
                Some(status)
            })
            .await;
            match answered {
                Ok(Some(status)) if !worth_retrying(status) => return,
                _ if attempt == settings.attempts => return,
                _ => {}
            }
            tokio::time::sleep(backoff).await;
            backoff = backoff.saturating_mul(2);
        }
    }
}

/// Whether an answer is a failure a later attempt may not meet; a success is not.
fn worth_retrying(status: StatusCode) -> bool {
    status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_drops_its_oldest_update() {
        let queue = Queue {
            bodies: Mutex::default(),
            ready: Notify::new(),
            closed: AtomicBool::new(false),
        };
        let update = |seq| Outgoing {
            seq,
            body: Bytes::from(seq.to_string()),
        };
        assert_eq!(queue.push(update(1), 2), None);
        assert_eq!(queue.push(update(2), 2), None);
        assert_eq!(queue.push(update(3), 2), Some(update(1)));
        queue.close();
        assert_eq!(queue.next().await, Some(update(2)));
        assert_eq!(queue.next().await, Some(update(3)));
        assert_eq!(queue.next().await, None);
    }
}
