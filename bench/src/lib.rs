//! Shared pieces of the benchmarks: the same small API served three ways
//! (typed-rpc, jsonrpsee 0.26, and the hand-written "floor"), the request
//! payloads, reply checks and a minimal executor; and the harness the
//! network benchmark binaries share.
//!
//! See `BENCHMARKS.md` at the repository root for what is measured and how.

pub mod a2a_load;
pub mod api;
pub mod cgroup;
pub mod eth;
pub mod exec;
pub mod floor;
pub mod harness;
pub mod inproc;
pub mod mcp_load;
pub mod payloads;
pub mod procstat;
pub mod streams;
