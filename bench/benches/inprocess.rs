//! In-process dispatch: request bytes in, response text out, no I/O.
//!
//! Three columns per case, measured in the same run (see
//! `typed_rpc_bench::inproc` for how each is called): `ours`, `jsonrpsee`,
//! `floor`; `add_positional` also has `jsonrpsee_tower`, jsonrpsee's HTTP
//! service in-process, the path its batches and notifications take, to show
//! what that path adds.
//!
//! The `batch_sleep_100x1ms` group needs timers, so it runs on a
//! current-thread tokio runtime (ours vs jsonrpsee only).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use typed_rpc_bench::api::ours;
use typed_rpc_bench::inproc::{Column, Columns, cases, tower_bytes, tower_call, tower_service};
use typed_rpc_bench::payloads::{self, check_batch};

fn dispatch(c: &mut Criterion) {
    for case in cases() {
        let mut cols = Columns::default();
        let mut columns = vec![Column::Ours, case.jsonrpsee, Column::Floor];
        if case.name == "add_positional" {
            columns.insert(2, Column::JsonrpseeTower);
        }
        for &column in &columns {
            let reply = cols.run(column, case.request);
            (case.check)(reply.as_deref())
                .unwrap_or_else(|e| panic!("{} {column:?}: {e}", case.name));
        }
        let mut group = c.benchmark_group(case.name);
        for column in columns {
            let id = match (case.name, column) {
                ("add_positional", Column::JsonrpseeTower) => "jsonrpsee_tower",
                _ => column.name(),
            };
            group.bench_function(id, |b| {
                b.iter(|| cols.time(column, black_box(case.request)));
            });
        }
        group.finish();
    }
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
        b.iter(|| rt.block_on(tower_bytes(&mut tower, black_box(request))));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = in_process;
    config = config();
    targets = dispatch
}
criterion_group! {
    name = concurrency;
    config = config();
    targets = batch_sleep
}
criterion_main!(in_process, concurrency);
