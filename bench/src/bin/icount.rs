//! Runs one in-process case of one column `N` times, for instruction counting
//! under `valgrind --tool=callgrind` (stable on a noisy machine, where
//! wall-clock timings are not).
//!
//! ```text
//! icount <case> <column> <iterations>
//! case:   add_positional | add_named | add_struct | invalid_params | batch_add_100 | notification
//! column: ours | jsonrpsee | floor
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
        "ours" => {
            let router = ours::router();
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
