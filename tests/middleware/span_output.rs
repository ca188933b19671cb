//! The spans as the guide's subscriber setup (guide::middleware) prints them:
//! `tracing_subscriber::fmt` with `FmtSpan::CLOSE` and the target filter
//! `typed_rpc=info`, on a multi-threaded runtime as servers run: a line per
//! call, WebSocket calls inside their connection's span, a stream's span
//! open as long as its stream, and a field a layer adds.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tracing::Dispatch;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt;
use typed_rpc::client::Transport;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc::{Router, TransportKind};

use crate::api::{Shop, ShopClient, Store};
use crate::connect;
use crate::spans::keep_interest_per_thread;

/// What the subscriber printed, kept.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Output {
    fn lines(&self) -> Vec<String> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    /// The lines that say a server call's span closed, for `method`.
    fn closed_calls(&self, method: &str) -> Vec<String> {
        let method = format!("rpc.method=\"{method}\"");
        self.lines()
            .into_iter()
            .filter(|line| line.contains("typed_rpc::call: close") && line.contains(&method))
            .collect()
    }
}

/// The guide's setup, writing to `output`.
fn subscriber(output: &Output) -> Dispatch {
    let output = output.clone();
    let fmt = tracing_subscriber::fmt::layer()
        .with_span_events(FmtSpan::CLOSE)
        .without_time()
        .with_ansi(false)
        .with_writer(move || output.clone());
    let filter: Targets = "typed_rpc=info".parse().unwrap();
    Dispatch::new(tracing_subscriber::registry().with(fmt).with(filter))
}

/// Runs `test` on a two-worker runtime whose every thread (and the test's)
/// prints to `output`.
fn printed<F: Future<Output = ()>>(output: &Output, test: impl FnOnce() -> F) {
    keep_interest_per_thread();
    let dispatch = subscriber(output);
    let per_thread = dispatch.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_start(move || {
            // For the worker's whole life.
            std::mem::forget(tracing::dispatcher::set_default(&per_thread));
        })
        .build()
        .unwrap();
    tracing::dispatcher::with_default(&dispatch, || runtime.block_on(test()));
}

async fn serve(router: Router) -> ServerHandle {
    Server::new(router).serve_http("127.0.0.1:0").await.unwrap()
}

/// Waits until `done` holds, for a few seconds at most.
async fn until(done: impl Fn() -> bool) -> bool {
    for _ in 0..200 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[test]
fn each_websocket_call_prints_a_line_inside_its_connection_s_span() {
    let output = Output::default();
    printed(&output, || async {
        let handle = serve(Router::new(Store::default().into_service())).await;
        let client = ShopClient::new(connect::websocket(&handle).await);
        assert_eq!(client.add(1, 2).await.unwrap(), 3);
        assert_eq!(client.add(3, 4).await.unwrap(), 7);
        drop(client);
        assert!(handle.shutdown().await);
    });
    let closed = output.closed_calls("add");
    assert_eq!(closed.len(), 2, "a line per call: {:#?}", output.lines());
    for line in closed {
        let connection = line
            .find("rpc.connection{")
            .expect("in the connection's span");
        let call = line.find(":rpc.call{").unwrap();
        assert!(connection < call, "{line}");
        assert!(line.contains("rpc.transport=websocket"), "{line}");
    }
}

/// Reads a `drip` of three items over `client`, checking that its span is
/// open after the first and closed after the last.
async fn drip_through<T: Transport>(client: &ShopClient<T>, output: &Output) {
    let before = output.closed_calls("drip").len();
    let mut items = client.drip(3, 30).await.unwrap();
    assert_eq!(items.next().await.unwrap().unwrap(), 0);
    // The first item is out, two are to come: the call goes on.
    assert_eq!(output.closed_calls("drip").len(), before);
    while let Some(item) = items.next().await {
        item.unwrap();
    }
    let closed = || output.closed_calls("drip").len() == before + 1;
    assert!(until(closed).await, "closed once the stream ended");
}

#[test]
fn a_stream_s_span_closes_when_the_stream_ends_not_when_it_starts() {
    let output = Output::default();
    printed(&output, || async {
        let handle = serve(Router::new(Store::default().into_service())).await;
        let websocket = ShopClient::new(connect::websocket(&handle).await);
        drip_through(&websocket, &output).await;
        drip_through(&ShopClient::new(connect::http(&handle)), &output).await;
        drop(websocket);
        assert!(handle.shutdown().await);
    });
    let closed = output.closed_calls("drip");
    assert!(closed[0].contains("rpc.transport=websocket"), "{closed:#?}");
    assert!(closed[1].contains("rpc.transport=http"), "{closed:#?}");
}

/// Records the caller's tenant on the call's span, as the guide shows.
struct Tenancy;

impl CallLayer for Tenancy {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let tenant = match request.context().transport() {
            TransportKind::WebSocket => 7,
            _ => 0,
        };
        tracing::Span::current().record("tenant.id", tenant);
        next.run(request).await
    }
}

#[test]
fn a_layer_adds_the_tenant_to_the_call_s_span() {
    let output = Output::default();
    printed(&output, || async {
        let router = Router::builder()
            .service(Store::default().into_service())
            .layer(Tenancy)
            .build()
            .unwrap();
        let handle = serve(router).await;
        let client = ShopClient::new(connect::websocket(&handle).await);
        assert_eq!(client.add(1, 2).await.unwrap(), 3);
        drop(client);
        assert!(handle.shutdown().await);
    });
    let closed = output.closed_calls("add");
    assert_eq!(closed.len(), 1, "{:#?}", output.lines());
    assert!(closed[0].contains("tenant.id=7"), "{}", closed[0]);
}
