//! Clients generated from OpenRPC documents with `openrpc!`:
//!
//! - `constructs`: property tests of each JSON Schema construct's type;
//! - `round_trip`: a document written here, its generated trait implemented
//!   as a server and its generated client calling it;
//! - `shapes`: every serde shape, a stream and typed errors, from a trait
//!   to its document, to a generated client, to our server of the trait;
//! - `metamask`: MetaMask's API document, its valid examples replayed;
//! - `examples`: the documents of the npm package `@open-rpc/examples`, each
//!   served by `@open-rpc/mock-server` and called by a client generated from
//!   it (in a crate this test writes, builds and runs, since the documents
//!   exist only once npm has installed them).

mod constructs;
mod examples;
#[path = "../support/fixture.rs"]
mod fixture;
mod metamask;
mod round_trip;
mod shapes;
