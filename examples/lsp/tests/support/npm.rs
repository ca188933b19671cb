//! The pinned npm packages of `tests/vscode`, installed with `npm ci` on
//! first use (once per test binary, under a lock between processes, and
//! only when `node_modules` does not hold what the lock file pins).
//!
//! This follows `tests/interop/main.rs` at the workspace root until the
//! shared `test-support` crate lands; it then replaces this file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

/// `tests/vscode`, with its packages installed; panics saying what is
/// missing (Node.js 20+ and npm on `PATH`, the npm registry).
pub fn vscode_packages() -> &'static Path {
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = INSTALLED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join("vscode");
        install(&dir).map(|()| dir)
    });
    dir.as_deref().unwrap_or_else(|err| panic!("{err}"))
}

fn install(dir: &Path) -> Result<(), String> {
    let version = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|err| format!("the LSP tests need Node.js 20+ on PATH: {err}"))?;
    let version = String::from_utf8_lossy(&version.stdout);
    let major = version.trim().trim_start_matches('v').split('.').next();
    if major
        .and_then(|major| major.parse::<u32>().ok())
        .is_none_or(|major| major < 20)
    {
        return Err(format!(
            "the LSP tests need Node.js 20 or later; `node --version` says {version}"
        ));
    }
    let _lock = Lock::take(&target_dir().join("lsp-vscode-npm.lock"))?;
    if fresh(dir) {
        return Ok(());
    }
    let started = Instant::now();
    let status = Command::new("npm")
        .current_dir(dir)
        .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
        .stdout(Stdio::null())
        .status()
        .map_err(|err| {
            format!("the LSP tests need npm on PATH to install their packages: {err}")
        })?;
    if !status.success() {
        return Err(format!(
            "`npm ci` in {} failed ({status}): is the npm registry reachable?",
            dir.display()
        ));
    }
    eprintln!(
        "installed the npm packages of {} in {:.1?}",
        dir.display(),
        started.elapsed()
    );
    Ok(())
}

/// The target directory: the test binary lives in `<target>/<profile>/deps/`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary lives in <target>/<profile>/deps/");
    target.to_owned()
}

/// Whether `node_modules` holds every package at the version the lock file
/// pins: npm records what it installed in `node_modules/.package-lock.json`.
fn fresh(dir: &Path) -> bool {
    let packages = |path: PathBuf| -> Option<Vec<(String, Value)>> {
        let lock: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        let mut packages: Vec<_> = lock["packages"]
            .as_object()?
            .iter()
            .filter(|(path, _)| !path.is_empty())
            .map(|(path, entry)| (path.clone(), entry["version"].clone()))
            .collect();
        packages.sort_by(|a, b| a.0.cmp(&b.0));
        Some(packages)
    };
    let wanted = packages(dir.join("package-lock.json"));
    wanted.is_some() && wanted == packages(dir.join("node_modules").join(".package-lock.json"))
}

/// A lock between processes: a directory only one can create; one left by
/// a killed run is taken over once it is old.
struct Lock(PathBuf);

impl Lock {
    const STALE: Duration = Duration::from_secs(600);

    fn take(path: &Path) -> Result<Lock, String> {
        let deadline = Instant::now() + Self::STALE * 2;
        loop {
            match std::fs::create_dir(path) {
                Ok(()) => return Ok(Lock(path.to_owned())),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(path)
                        .and_then(|meta| meta.modified())
                        .ok()
                        .and_then(|modified| modified.elapsed().ok());
                    if age.is_some_and(|age| age > Self::STALE) {
                        let _ = std::fs::remove_dir(path);
                    } else if Instant::now() > deadline {
                        return Err(format!("{} is held by another test run", path.display()));
                    } else {
                        std::thread::sleep(Duration::from_millis(100));
                    }
                }
                Err(err) => return Err(format!("cannot create {}: {err}", path.display())),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}
