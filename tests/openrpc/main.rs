//! Clients generated from OpenRPC documents with `openrpc!`:
//!
//! - `round_trip`: a document written here, its generated trait implemented
//!   as a server and its generated client calling it;
//! - `examples`: the documents of the npm package `@open-rpc/examples`, each
//!   served by `@open-rpc/mock-server` and called by a client generated from
//!   it (in a crate this test writes, builds and runs, since the documents
//!   exist only once npm has installed them).

mod examples;
mod round_trip;
