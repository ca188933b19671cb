//! The example programs, built on demand, for tests that run them as child
//! processes: `cargo test --test <name>` alone builds no examples.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The repository's root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The profile directory this test binary was built into (`target/debug`):
/// it lives in `<profile dir>/deps/`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lives in <target>/<profile>/deps/")
        .to_owned()
}

/// The target directory (`target`, or `$CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .expect("the profile directory has a parent")
        .to_owned()
}

/// The binary of example `name`, built (once per test binary) with the
/// profile this test was built with.
pub fn binary(name: &str) -> &'static Path {
    static BUILT: OnceLock<Mutex<HashMap<String, &'static Path>>> = OnceLock::new();
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some(path) = built.get(name) {
        return path;
    }
    let path: &'static Path = Box::leak(
        build(name)
            .unwrap_or_else(|err| panic!("{err}"))
            .into_boxed_path(),
    );
    built.insert(name.to_owned(), path);
    path
}

fn build(name: &str) -> Result<PathBuf, String> {
    let profile = profile_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(repo())
        .args(["build", "--quiet", "--example", name])
        .env("CARGO_TARGET_DIR", target_dir());
    match profile.file_name().and_then(|profile| profile.to_str()) {
        Some("debug") | None => {}
        Some("release") => {
            build.arg("--release");
        }
        Some(other) => {
            build.args(["--profile", other]);
        }
    }
    let status = build
        .status()
        .map_err(|err| format!("cannot run cargo to build the {name} example: {err}"))?;
    if !status.success() {
        return Err(format!("`cargo build --example {name}` failed: {status}"));
    }
    let binary = profile
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    match binary.is_file() {
        true => Ok(binary),
        false => Err(format!("no {name} example at {}", binary.display())),
    }
}
