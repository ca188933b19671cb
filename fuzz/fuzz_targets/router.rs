//! Any bytes as one message to the router: no panic, and the reply (or its
//! absence) is exactly what JSON-RPC 2.0 calls for, every id echoed as sent.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use typed_rpc::Router;
use typed_rpc_fuzz::harness::router::{self as rig, oracle, services};

static ROUTER: LazyLock<Router> = LazyLock::new(services::router);

fuzz_target!(|data: &[u8]| {
    let reply = rig::handle(&ROUTER, data);
    if let Err(err) = oracle::check(data, reply.as_deref()) {
        panic!("{err}");
    }
});
