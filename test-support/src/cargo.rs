//! This workspace's example programs, built on demand with the profile the
//! running test was built with, for tests that run them as child
//! processes: `cargo test --test <name>` alone builds no examples.

use std::path::PathBuf;
use std::process::Command;

use crate::{Error, Result, memo, paths};

/// The binary of example `name` of package `package`, built (once per test
/// binary) into the running test's target directory and profile.
///
/// ```no_run
/// let calculator = typed_rpc_test_support::cargo::example("typed-rpc", "calculator").unwrap();
/// let server = std::process::Command::new(calculator).args(["--http", "127.0.0.1:0"]).spawn();
/// # let _ = server;
/// ```
pub fn example(package: &str, name: &str) -> Result<PathBuf> {
    memo::once(format!("example:{package}:{name}"), || build(package, name))
}

/// What cargo reads of its own settings; the other `CARGO_` variables a
/// test sees are cargo's words to the test.
const KEPT_CARGO_VARS: [&str; 3] = ["CARGO_HOME", "CARGO_TARGET_DIR", "CARGO_INCREMENTAL"];

fn build(package: &str, name: &str) -> Result<PathBuf> {
    let profile = paths::profile_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(paths::workspace_root())
        .args(["build", "--quiet", "-p", package, "--example", name])
        .env("CARGO_TARGET_DIR", paths::target_dir());
    // Not the test's own environment: cargo gives a test its build
    // directories in `LD_LIBRARY_PATH` and its own `CARGO_` variables, and a
    // build script run under other values runs again (ring's, and all
    // after it: a minute and more, every time).
    build.env_remove("LD_LIBRARY_PATH");
    for (variable, _) in std::env::vars_os() {
        let variable = variable.to_string_lossy();
        if variable.starts_with("CARGO_") && !KEPT_CARGO_VARS.contains(&&*variable) {
            build.env_remove(&*variable);
        }
    }
    match profile.file_name().and_then(|profile| profile.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            build.arg("--release");
        }
        Some(other) => {
            build.args(["--profile", other]);
        }
    }
    let status = build.status().map_err(|err| {
        Error::new(format!(
            "cannot run cargo to build the {name} example: {err}"
        ))
    })?;
    if !status.success() {
        return Err(Error::new(format!(
            "`cargo build -p {package} --example {name}` failed: {status}"
        )));
    }
    let binary = profile
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    match binary.is_file() {
        true => Ok(binary),
        false => Err(Error::new(format!(
            "no {name} example at {}",
            binary.display()
        ))),
    }
}
