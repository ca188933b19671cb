//! The `tracing` spans: each call's, with OpenTelemetry's attributes for
//! JSON-RPC, inside its connection's on a duplex transport; the client's
//! for the calls it makes. Read by a subscriber that keeps every span.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::{Interest, NoSubscriber};
use tracing::{Dispatch, Event, Metadata, Subscriber};
use typed_rpc::Router;
use typed_rpc::transport::Server;

use crate::api::{Deny, Shop, ShopClient, Store};
use crate::connect;

/// A span as the subscriber saw it.
#[derive(Clone, Debug)]
struct Seen {
    name: &'static str,
    target: String,
    fields: BTreeMap<String, String>,
    parent: Option<u64>,
    /// Handles still open; closed at zero.
    handles: usize,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// Keeps every span of the `typed_rpc` targets, with its fields and parent.
#[derive(Clone, Default)]
struct Capture {
    spans: Arc<Mutex<HashMap<u64, Seen>>>,
    /// The spans entered on this (the only) thread, innermost last.
    entered: Arc<Mutex<Vec<u64>>>,
    next_id: Arc<AtomicU64>,
}

impl Capture {
    fn spans(&self) -> Vec<(u64, Seen)> {
        let mut spans: Vec<_> = self
            .spans
            .lock()
            .unwrap()
            .iter()
            .map(|(id, seen)| (*id, seen.clone()))
            .collect();
        spans.sort_by_key(|(id, _)| *id);
        spans
    }

    /// The closed span of `target` whose `field` is `value`.
    fn find(&self, target: &str, field: &str, value: &str) -> (u64, Seen) {
        let spans = self.spans();
        spans
            .iter()
            .find(|(_, seen)| seen.target == target && seen.field(field) == Some(value))
            .cloned()
            .unwrap_or_else(|| panic!("a span of {target} with {field} = {value} in {spans:#?}"))
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        match self.enabled(metadata) {
            true => Interest::always(),
            false => Interest::never(),
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("typed_rpc::")
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = match attrs.parent() {
            Some(parent) => Some(parent.into_u64()),
            None if attrs.is_contextual() => self.entered.lock().unwrap().last().copied(),
            None => None,
        };
        let seen = Seen {
            name: attrs.metadata().name(),
            target: attrs.metadata().target().to_owned(),
            fields,
            parent,
            handles: 1,
        };
        self.spans.lock().unwrap().insert(id, seen);
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(seen) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        self.entered.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut entered = self.entered.lock().unwrap();
        if let Some(at) = entered.iter().rposition(|id| *id == span.into_u64()) {
            entered.remove(at);
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        if let Some(seen) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            seen.handles += 1;
        }
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        let mut spans = self.spans.lock().unwrap();
        let Some(seen) = spans.get_mut(&span.into_u64()) else {
            return false;
        };
        seen.handles -= 1;
        seen.handles == 0
    }
}

/// Runs `test` on a one-thread runtime, with `capture` as that thread's
/// subscriber: the server's tasks and the client's run there too.
fn traced<F: Future<Output = ()>>(capture: &Capture, test: impl FnOnce() -> F) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    keep_interest_per_thread();
    tracing::subscriber::with_default(capture.clone(), || runtime.block_on(test()));
}

/// With a single subscriber registered, tracing sets the interest of a
/// callsite that another test's thread reaches first by that thread's
/// (none: never), for every thread. One more subscriber, kept for the
/// whole run, makes it ask all of them.
pub fn keep_interest_per_thread() {
    static KEEPER: OnceLock<Dispatch> = OnceLock::new();
    KEEPER.get_or_init(|| Dispatch::new(NoSubscriber::default()));
}

#[track_caller]
fn assert_fields(seen: &Seen, expected: &[(&str, &str)]) {
    for (name, value) in expected {
        assert_eq!(seen.field(name), Some(*value), "{name} of {seen:#?}");
    }
}

#[test]
fn each_call_has_a_span_with_the_jsonrpc_attributes() {
    let capture = Capture::default();
    traced(&capture, || async {
        let router = Router::new(Store::default().into_service());
        let add = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":7}"#;
        assert!(router.handle(add).await.is_some());
        let buy = br#"{"jsonrpc":"2.0","method":"buy","params":["tea"],"id":"x"}"#;
        assert!(router.handle(buy).await.is_some());
        let bump = br#"{"jsonrpc":"2.0","method":"bump","params":[1]}"#;
        assert!(router.handle(bump).await.is_none());
    });
    let (_, add) = capture.find("typed_rpc::call", "rpc.method", "add");
    assert_eq!(add.name, "rpc.call");
    assert_fields(
        &add,
        &[
            ("otel.kind", "server"),
            ("otel.name", "add"),
            ("rpc.system", "jsonrpc"),
            ("rpc.jsonrpc.version", "2.0"),
            ("rpc.jsonrpc.request_id", "7"),
            ("rpc.transport", "in-process"),
        ],
    );
    assert_eq!(add.field("rpc.jsonrpc.error_code"), None);
    assert_eq!(add.field("otel.status_code"), None);
    assert_eq!(add.handles, 0, "the span ends with its call");

    let (_, buy) = capture.find("typed_rpc::call", "rpc.method", "buy");
    assert_fields(
        &buy,
        &[
            ("rpc.jsonrpc.request_id", "x"),
            ("rpc.jsonrpc.error_code", "-32042"),
            ("rpc.jsonrpc.error_message", "Out of stock"),
            ("otel.status_code", "ERROR"),
        ],
    );

    let (_, bump) = capture.find("typed_rpc::call", "rpc.method", "bump");
    assert_eq!(bump.field("rpc.jsonrpc.request_id"), None);
}

#[test]
fn a_layers_refusal_is_recorded_on_the_span() {
    let capture = Capture::default();
    traced(&capture, || async {
        let router = Router::builder()
            .service(Store::default().into_service())
            .layer(Deny { prefix: "add" })
            .build()
            .unwrap();
        let add = br#"{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}"#;
        assert!(router.handle(add).await.is_some());
    });
    let (_, add) = capture.find("typed_rpc::call", "rpc.method", "add");
    assert_fields(
        &add,
        &[
            ("rpc.jsonrpc.error_code", "-32001"),
            ("rpc.jsonrpc.error_message", "Unauthorized"),
        ],
    );
}

#[test]
fn over_websocket_calls_open_in_their_connections_span_and_the_client_has_its_own() {
    let capture = Capture::default();
    traced(&capture, || async {
        let server = Server::new(Router::new(Store::default().into_service()));
        let handle = server.serve_http("127.0.0.1:0").await.unwrap();
        let client = ShopClient::new(connect::websocket(&handle).await);
        assert_eq!(client.add(1, 2).await.unwrap(), 3);
        assert!(client.buy("tea".into()).await.is_err());
        drop(client);
        assert!(handle.shutdown().await);
    });
    let (connection_id, connection) = capture.find("typed_rpc::connection", "otel.kind", "server");
    assert_eq!(connection.name, "rpc.connection");
    assert_fields(
        &connection,
        &[
            ("rpc.transport", "websocket"),
            ("network.peer.address", "127.0.0.1"),
        ],
    );
    let (_, call) = capture.find("typed_rpc::call", "rpc.method", "add");
    assert_eq!(call.parent, Some(connection_id));
    assert_fields(
        &call,
        &[
            ("rpc.transport", "websocket"),
            ("network.peer.address", "127.0.0.1"),
            ("rpc.jsonrpc.request_id", "1"),
        ],
    );
    assert!(call.field("network.peer.port").is_some());

    let (_, client_add) = capture.find("typed_rpc::client", "rpc.method", "add");
    assert_fields(
        &client_add,
        &[
            ("otel.kind", "client"),
            ("rpc.system", "jsonrpc"),
            ("rpc.jsonrpc.version", "2.0"),
        ],
    );
    assert_eq!(client_add.field("otel.status_code"), None);
    let (_, client_buy) = capture.find("typed_rpc::client", "rpc.method", "buy");
    assert_fields(
        &client_buy,
        &[
            ("rpc.jsonrpc.error_code", "-32042"),
            ("error.type", "jsonrpc"),
            ("otel.status_code", "ERROR"),
        ],
    );
    capture.find("typed_rpc::connection", "otel.kind", "client");
}
