//! In-process dispatch: request bytes in, response text out, no I/O.
//!
//! Three columns per case, measured in the same run:
//! - `ours`: `Router::handle`;
//! - `jsonrpsee`: `RpcModule::raw_json_request` for single calls; for batches
//!   and notifications, which `raw_json_request` cannot take, jsonrpsee's own
//!   HTTP service (`TowerService`) called in-process (no socket);
//!   `jsonrpsee_tower` on `add_positional` shows what that path adds;
//! - `floor`: the hand-written minimum in `typed_rpc_bench::floor`.
//!
//! Every column is driven the same way: one poll with a no-op waker
//! ([`run_ready`]). The `batch_sleep` group needs timers, so it runs on a
//! current-thread tokio runtime (ours vs jsonrpsee only).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use jsonrpsee::server::{Server, stop_channel};
use tower::Service;
use typed_rpc_bench::api::{jsonrpsee_api, ours};
use typed_rpc_bench::exec::run_ready;
use typed_rpc_bench::floor;
use typed_rpc_bench::payloads::{self, check_batch, check_error, check_result};

/// jsonrpsee's HTTP service, called in-process.
type Tower =
    jsonrpsee::server::TowerService<tower::layer::util::Identity, tower::layer::util::Identity>;

fn tower_service() -> Tower {
    let (stop, handle) = stop_channel();
    // The server stays "running" for the whole benchmark.
    std::mem::forget(handle);
    Server::builder()
        .to_service_builder()
        .build(jsonrpsee_api::module(), stop)
}

/// One POST through jsonrpsee's HTTP service; the body text (empty for a notification).
async fn tower_call(service: &mut Tower, body: &'static str) -> String {
    let request = hyper::Request::post("/")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(body.as_bytes())))
        .expect("a valid request");
    let response = service.call(request).await.expect("an HTTP response");
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

struct Columns {
    router: typed_rpc::Router,
    module: jsonrpsee::RpcModule<()>,
    tower: Tower,
}

impl Columns {
    fn new() -> Self {
        Columns {
            router: ours::router(),
            module: jsonrpsee_api::module(),
            tower: tower_service(),
        }
    }

    fn ours(&self, request: &str) -> Option<String> {
        run_ready(self.router.handle(request.as_bytes()))
    }

    fn jsonrpsee(&self, request: &str) -> String {
        let (reply, _subscriptions) =
            run_ready(self.module.raw_json_request(request, 1)).expect("a valid request");
        reply.get().to_owned()
    }

    fn jsonrpsee_tower(&mut self, request: &'static str) -> String {
        run_ready(tower_call(&mut self.tower, request))
    }

    fn floor(&self, request: &str) -> Option<String> {
        run_ready(async { floor::handle(request.as_bytes()) })
    }
}

/// A single call answered with `check`; benchmarks all three columns.
fn single(
    c: &mut Criterion,
    name: &str,
    request: &'static str,
    check: impl Fn(&str) -> Result<(), String>,
) {
    let mut cols = Columns::new();
    check(&cols.ours(request).expect("a reply")).expect("ours answers correctly");
    check(&cols.jsonrpsee(request)).expect("jsonrpsee answers correctly");
    check(&cols.floor(request).expect("a reply")).expect("the floor answers correctly");

    let mut group = c.benchmark_group(name);
    group.bench_function("ours", |b| {
        b.iter(|| cols.ours(black_box(request)));
    });
    group.bench_function("jsonrpsee", |b| {
        b.iter(|| cols.jsonrpsee(black_box(request)));
    });
    if name == "add_positional" {
        check(&cols.jsonrpsee_tower(request)).expect("jsonrpsee (tower) answers correctly");
        group.bench_function("jsonrpsee_tower", |b| {
            b.iter(|| cols.jsonrpsee_tower(black_box(request)));
        });
    }
    group.bench_function("floor", |b| {
        b.iter(|| cols.floor(black_box(request)));
    });
    group.finish();
}

fn add_positional(c: &mut Criterion) {
    single(c, "add_positional", payloads::ADD_POSITIONAL, |r| {
        check_result(r, 1, 3)
    });
}

fn add_named(c: &mut Criterion) {
    single(c, "add_named", payloads::ADD_NAMED, |r| {
        check_result(r, 1, 3)
    });
}

fn add_struct(c: &mut Criterion) {
    single(c, "add_struct", payloads::ADD_STRUCT, |r| {
        check_result(r, 1, 3)
    });
}

fn invalid_params(c: &mut Criterion) {
    single(c, "invalid_params", payloads::ADD_WRONG_TYPE, |r| {
        check_error(r, 1, -32602)
    });
}

/// Batches and notifications: jsonrpsee through its in-process HTTP service.
fn via_tower(
    c: &mut Criterion,
    name: &str,
    request: &'static str,
    check: impl Fn(Option<&str>) -> Result<(), String>,
) {
    let mut cols = Columns::new();
    check(cols.ours(request).as_deref()).expect("ours answers correctly");
    // jsonrpsee answers a notification over HTTP with 200 and the body `null`:
    // counted as no reply.
    let tower = cols.jsonrpsee_tower(request);
    check(Some(tower.as_str()).filter(|t| !t.is_empty() && *t != "null"))
        .expect("jsonrpsee answers correctly");
    check(cols.floor(request).as_deref()).expect("the floor answers correctly");

    let mut group = c.benchmark_group(name);
    group.bench_function("ours", |b| {
        b.iter(|| cols.ours(black_box(request)));
    });
    group.bench_function("jsonrpsee", |b| {
        b.iter(|| cols.jsonrpsee_tower(black_box(request)));
    });
    group.bench_function("floor", |b| {
        b.iter(|| cols.floor(black_box(request)));
    });
    group.finish();
}

fn batch_add_100(c: &mut Criterion) {
    let request: &'static str = Box::leak(payloads::batch_add(100).into_boxed_str());
    via_tower(c, "batch_add_100", request, |r| {
        check_batch(r.ok_or("no reply")?, 100, |i| 2 * i as i64)
    });
}

fn notification(c: &mut Criterion) {
    via_tower(c, "notification", payloads::NOTIFY, |r| match r {
        None => Ok(()),
        Some(r) => Err(format!("a notification was answered: {r}")),
    });
}

/// 100 calls that each sleep 1 ms, in one batch: concurrent entries finish
/// in about 1 ms, sequential ones in over 100 ms.
fn batch_sleep(c: &mut Criterion) {
    let request: &'static str = Box::leak(payloads::batch_sleep(100, 1).into_boxed_str());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let router = ours::router();
    let mut tower = tower_service();
    let check = |r: &str| check_batch(r, 100, |_| 1);
    check(
        &rt.block_on(router.handle(request.as_bytes()))
            .expect("a reply"),
    )
    .expect("ours");
    check(&rt.block_on(tower_call(&mut tower, request))).expect("jsonrpsee");

    let mut group = c.benchmark_group("batch_sleep_100x1ms");
    group.sample_size(10);
    group.bench_function("ours", |b| {
        b.iter(|| rt.block_on(router.handle(black_box(request.as_bytes()))));
    });
    group.bench_function("jsonrpsee", |b| {
        b.iter(|| rt.block_on(tower_call(&mut tower, black_box(request))));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = dispatch;
    config = config();
    targets = add_positional, add_named, add_struct, invalid_params, batch_add_100, notification
}
criterion_group! {
    name = concurrency;
    config = config();
    targets = batch_sleep
}
criterion_main!(dispatch, concurrency);
