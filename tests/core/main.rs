//! The core, in process: the router, params decoding, the generated client,
//! the specification's examples, handler isolation, hostile input and the
//! property tests.

#[path = "../support/mod.rs"]
mod support;

mod absent_params;
mod calculator_example;
mod client;
mod conformance;
mod hostile;
mod isolation;
mod param_paths;
mod params;
mod properties;
mod router;
mod wire_names;
