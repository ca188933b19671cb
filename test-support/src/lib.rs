//! What the workspace's tests need from the machine, provisioned by the
//! tests themselves, so that `cargo test --workspace` passes on a fresh
//! machine with only Rust, Python 3 with pip, Node.js 20 with npm and
//! PostgreSQL's binaries installed.
//!
//! | module | provisions |
//! |---|---|
//! | [`npm`] | `npm ci` of a directory of pinned packages, skipped when they are there |
//! | [`pip`] | `pip install --target <target dir>/<name>` of pinned requirements, skipped when they are there |
//! | [`debian`] | a Debian package (`chromium`, `nginx`) installed with `apt-get` when its binary is missing and we are root |
//! | [`postgres`] | a throwaway PostgreSQL cluster on a loopback port: stopped, restarted, removed on drop |
//! | [`nginx`] | nginx as a reverse proxy in front of upstreams, stopped on drop |
//! | [`process`] | child processes run within a time limit, pipes drained |
//! | [`child`] | a child process ended (asked, then killed) when its guard drops |
//! | [`lines`] | a child's output read line by line, a server's announcement awaited |
//! | [`cargo`] | this workspace's example binaries, built on demand |
//! | [`paths`] | the workspace's root and the running test's target directory |
//! | [`lock`] | a lock between processes, taken by every installer |
//! | [`scratch`] | a temporary directory removed on drop |
//!
//! Every installer runs at most once per test binary and under a lock
//! between processes, so test binaries running at once never race, and
//! every failure is an [`Error`] that says what is missing and the command
//! that fixes it.
//!
//! ```no_run
//! use typed_rpc_test_support::{npm::NodePackages, paths};
//!
//! let packages = NodePackages::install(paths::workspace_root().join("tests/interop")).unwrap();
//! let output = packages.node("jayson_client.js").output().unwrap();
//! # let _ = output;
//! ```

#![warn(missing_docs)]

pub mod cargo;
pub mod child;
pub mod debian;
mod error;
pub mod lines;
pub mod lock;
mod memo;
pub mod nginx;
pub mod npm;
pub mod paths;
pub mod pip;
pub mod postgres;
pub mod process;
pub mod scratch;
mod system;

pub use error::{Error, Result};
