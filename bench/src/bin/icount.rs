//! Runs one in-process case of one column `N` times, for instruction counting
//! under `valgrind --tool=callgrind` (stable on a noisy machine, where
//! wall-clock timings are not).
//!
//! ```text
//! icount <case> <column> <iterations>
//! case:   add_positional | add_named | add_struct | invalid_params | batch_add_100 | notification
//! column: ours | jsonrpsee | floor
//!         ours_layer  (one call layer that passes each call on)
//!         ours_quiet  (a tracing subscriber that wants no typed-rpc span)
//!         ours_spans  (a tracing subscriber that wants the call spans, and drops them)
//! ```
//!
//! Instructions per call = (Ir(N2) - Ir(N1)) / (N2 - N1), which cancels the
//! start-up cost; `bench/icount.sh` does exactly that.

use std::hint::black_box;

use typed_rpc_bench::api::{jsonrpsee_api, ours};
use typed_rpc_bench::exec::run_ready;
use typed_rpc_bench::{floor, payloads};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [case, column, iterations] = args.as_slice() else {
        eprintln!("usage: icount <case> <column> <iterations>");
        std::process::exit(2);
    };
    let iterations: u64 = iterations.parse().expect("a number of iterations");
    let request: String = match case.as_str() {
        "add_positional" => payloads::ADD_POSITIONAL.to_owned(),
        "add_named" => payloads::ADD_NAMED.to_owned(),
        "add_struct" => payloads::ADD_STRUCT.to_owned(),
        "invalid_params" => payloads::ADD_WRONG_TYPE.to_owned(),
        "batch_add_100" => payloads::batch_add(100),
        "notification" => payloads::NOTIFY.to_owned(),
        other => panic!("unknown case {other}"),
    };
    let mut bytes = 0usize;
    match column.as_str() {
        "ours" | "ours_layer" | "ours_quiet" | "ours_spans" => {
            let router = match column.as_str() {
                "ours_layer" => ours::layered_router(),
                _ => ours::router(),
            };
            match column.as_str() {
                "ours_quiet" => subscriber::install(false),
                "ours_spans" => subscriber::install(true),
                _ => {}
            }
            for _ in 0..iterations {
                let reply = run_ready(router.handle(black_box(request.as_bytes())));
                bytes += reply.map_or(0, |r| r.len());
            }
        }
        "jsonrpsee" => {
            // Single calls only: batches and notifications need the HTTP
            // service (see benches/inprocess.rs).
            let module = jsonrpsee_api::module();
            for _ in 0..iterations {
                let (reply, _) = run_ready(module.raw_json_request(black_box(&request), 1))
                    .expect("a single call");
                bytes += reply.get().len();
            }
        }
        "floor" => {
            for _ in 0..iterations {
                let reply = run_ready(async { floor::handle(black_box(request.as_bytes())) });
                bytes += reply.map_or(0, |r| r.len());
            }
        }
        other => panic!("unknown column {other}"),
    }
    println!("{bytes}");
}

/// Global `tracing` subscribers that keep nothing: what asking for spans,
/// and making them, cost the router.
mod subscriber {
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    struct Discard {
        /// Whether it wants the spans of `typed_rpc::*`, or only spans of
        /// an application's own targets.
        calls: bool,
    }

    impl Subscriber for Discard {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            self.calls == metadata.target().starts_with("typed_rpc")
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    pub fn install(calls: bool) {
        tracing::subscriber::set_global_default(Discard { calls }).expect("the first subscriber");
    }
}
