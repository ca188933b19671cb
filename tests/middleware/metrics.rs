//! Per-method metrics kept by a layer: calls, errors by code, calls in
//! flight, latency, read back after the calls.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use typed_rpc::Router;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};

use crate::api::{Shop, Store};

/// The upper bounds of the latency buckets; the last bucket has none.
const BUCKETS: [Duration; 3] = [
    Duration::from_millis(1),
    Duration::from_millis(25),
    Duration::from_millis(250),
];

#[derive(Clone, Debug, Default, PartialEq)]
struct MethodStats {
    calls: u64,
    errors: BTreeMap<i64, u64>,
    in_flight: u64,
    most_in_flight: u64,
    /// How many calls took at most each bound of [`BUCKETS`], and more.
    latency: [u64; BUCKETS.len() + 1],
}

/// Counters and a latency histogram per method.
#[derive(Default)]
struct Metrics {
    methods: Mutex<BTreeMap<String, MethodStats>>,
}

impl Metrics {
    fn of(&self, method: &str) -> MethodStats {
        self.methods
            .lock()
            .unwrap()
            .get(method)
            .cloned()
            .unwrap_or_default()
    }

    fn update(&self, method: &str, change: impl FnOnce(&mut MethodStats)) {
        change(
            self.methods
                .lock()
                .unwrap()
                .entry(method.to_owned())
                .or_default(),
        );
    }
}

/// Takes its call off the in-flight count however the call ends.
struct InFlight<'a> {
    metrics: &'a Metrics,
    method: String,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.metrics
            .update(&self.method, |stats| stats.in_flight -= 1);
    }
}

impl CallLayer for Metrics {
    async fn call<'a>(&'a self, request: CallRequest<'a>, next: Next<'a>) -> Reply {
        let method = request.method().to_owned();
        self.update(&method, |stats| {
            stats.calls += 1;
            stats.in_flight += 1;
            stats.most_in_flight = stats.most_in_flight.max(stats.in_flight);
        });
        let in_flight = InFlight {
            metrics: self,
            method,
        };
        let started = Instant::now();
        let reply = next.run(request).await;
        let took = started.elapsed();
        let bucket = BUCKETS.iter().take_while(|bound| took > **bound).count();
        let code = reply.error().map(|error| error.code());
        self.update(&in_flight.method, |stats| {
            stats.latency[bucket] += 1;
            if let Some(code) = code {
                *stats.errors.entry(code).or_default() += 1;
            }
        });
        reply
    }
}

#[tokio::test]
async fn a_metrics_layer_counts_calls_errors_in_flight_and_latency() {
    let metrics = Arc::new(Metrics::default());
    let router = Router::builder()
        .service(Store::default().into_service())
        .layer(metrics.clone())
        .build()
        .unwrap();
    let call = |method: &str, params: serde_json::Value, id: u64| json!({"jsonrpc": "2.0", "method": method, "params": params, "id": id});
    for id in 0..3 {
        router
            .handle(call("add", json!([id, 1]), id).to_string().as_bytes())
            .await;
    }
    for id in 0..2 {
        router
            .handle(call("buy", json!(["tea"]), id).to_string().as_bytes())
            .await;
    }
    router
        .handle(call("nope", json!([]), 9).to_string().as_bytes())
        .await;
    // Two slow calls of one batch are in flight together.
    let batch = json!([call("slow", json!([40]), 1), call("slow", json!([40]), 2)]);
    router.handle(batch.to_string().as_bytes()).await;

    let add = metrics.of("add");
    assert_eq!((add.calls, add.in_flight), (3, 0));
    assert!(add.errors.is_empty());
    assert_eq!(add.latency.iter().sum::<u64>(), 3);

    let buy = metrics.of("buy");
    assert_eq!(buy.calls, 2);
    assert_eq!(buy.errors, BTreeMap::from([(-32042, 2)]));

    assert_eq!(metrics.of("nope").errors, BTreeMap::from([(-32601, 1)]));

    let slow = metrics.of("slow");
    assert_eq!((slow.calls, slow.in_flight, slow.most_in_flight), (2, 0, 2));
    // Both took their 40 ms at least: past the 25 ms bound.
    assert_eq!(slow.latency[0] + slow.latency[1], 0);
    assert_eq!(slow.latency[2] + slow.latency[3], 2);
}
