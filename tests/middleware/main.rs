//! Call layers (`RouterBuilder::layer`): their order, answering in the
//! handler's place, batches and notifications call by call, extensions
//! for the handler, connection extensions a login or a layer sets once,
//! every transport, subscriptions, cancellation; the
//! `tracing` spans of calls, connections and client calls; and per-method
//! metrics kept by a layer.

// Not every transport's client is used here.
#[allow(dead_code)]
#[path = "../support/connect.rs"]
mod connect;

mod api;
mod connections;
mod layers;
mod metrics;
mod span_output;
mod spans;
mod transports;
