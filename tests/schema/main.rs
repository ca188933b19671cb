//! OpenRPC documents from `#[rpc]` traits (the `schema` feature):
//!
//! - `documents`: what the calculator's and a richer API's documents say;
//! - `discover`: the router's opt-in `rpc.discover`;
//! - `tools`: the documents checked by the OpenRPC project's own tools,
//!   `@open-rpc/schema-utils-js` (valid documents) and
//!   `@open-rpc/test-coverage` (the running calculator keeps the promises
//!   of its document), installed from `tests/schema/npm` by the test, and
//!   ajv in strict mode (every schema compiles);
//! - `generated_ts`: a TypeScript client `@open-rpc/generator` writes from
//!   the calculator's document calls the calculator (`tests/schema/npm-ts`).

#[path = "../../examples/common/calculator_api.rs"]
#[allow(dead_code)]
mod calculator_api;

mod catalog;
mod discover;
mod documents;
#[path = "../support/fixture.rs"]
mod fixture;
mod generated_ts;
mod round_trip;
mod tools;

use typed_rpc::schema::Document;

/// The calculator's document, as a server of it would publish it.
fn calculator_document() -> serde_json::Value {
    Document::new("Calculator", "1.0.0")
        .service(calculator_api::CalculatorService::<()>::INFO)
        .to_json()
}
