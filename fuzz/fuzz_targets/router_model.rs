//! Requests and batches generated from a model (every kind of id, known,
//! unknown and reserved methods, params of every shape and type): the reply
//! follows the protocol and is exactly the result or error the model predicts.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use typed_rpc::Router;
use typed_rpc_fuzz::RouterInput;
use typed_rpc_fuzz::harness::router::{self as rig, oracle, services};

static ROUTER: LazyLock<Router> = LazyLock::new(services::router);

fuzz_target!(|input: RouterInput| {
    let scenario = input.0;
    let bytes = scenario.text.as_bytes();
    let reply = rig::handle(&ROUTER, bytes);
    let parsed = match oracle::check(bytes, reply.as_deref()) {
        Ok(parsed) => parsed,
        Err(err) => panic!("{err}"),
    };
    if let Err(err) = scenario.check(&parsed) {
        panic!("{err}");
    }
});
