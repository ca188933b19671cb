//! `npm ci` of a directory of pinned packages (`package.json` and
//! `package-lock.json`), once per test binary and under a lock between
//! processes; skipped when `node_modules` already holds what the lock file
//! pins.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::lock::Lock;
use crate::{Error, Result, memo, process};

/// The oldest Node.js the pinned packages are tested with.
const NODE_MAJOR: u32 = 20;
/// How long `npm ci` may take.
const INSTALL_LIMIT: Duration = Duration::from_secs(600);

/// A directory whose pinned npm packages are installed in its
/// `node_modules`.
///
/// ```no_run
/// use typed_rpc_test_support::{npm::NodePackages, paths, process};
/// use std::time::Duration;
///
/// let packages = NodePackages::install(paths::workspace_root().join("tests/streaming/npm")).unwrap();
/// let mut command = packages.node("sse.js");
/// command.arg("http://127.0.0.1:3000/");
/// let output = process::run(command, Duration::from_secs(60)).unwrap();
/// assert!(output.success(), "{}", output.stderr);
/// ```
#[derive(Clone, Debug)]
pub struct NodePackages {
    dir: PathBuf,
}

impl NodePackages {
    /// Installs the packages `dir/package-lock.json` pins with `npm ci`,
    /// unless `dir/node_modules` holds them already. Needs Node.js 20+ and
    /// npm on `PATH`, and the npm registry when it installs.
    pub fn install(dir: impl Into<PathBuf>) -> Result<NodePackages> {
        let dir: PathBuf = dir.into();
        let dir = dir.canonicalize().map_err(|err| {
            Error::new(format!(
                "no npm package directory at {}: {err}",
                dir.display()
            ))
        })?;
        let key = format!("npm:{}", dir.display());
        let dir = memo::once(key, || install(dir))?;
        Ok(NodePackages { dir })
    }

    /// The directory, holding `node_modules`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `node <script>` run in the directory, so that the script's imports
    /// find the packages.
    pub fn node(&self, script: impl AsRef<Path>) -> Command {
        let mut command = Command::new("node");
        command.current_dir(&self.dir).arg(self.dir.join(script));
        command
    }
}

fn install(dir: PathBuf) -> Result<PathBuf> {
    node_major()?;
    let _lock = Lock::take(&dir.join("node_modules"))?;
    if installed(&dir) {
        return Ok(dir);
    }
    let started = Instant::now();
    let mut npm = Command::new("npm");
    npm.current_dir(&dir)
        .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"]);
    let output = process::run(npm, INSTALL_LIMIT).map_err(|err| {
        Error::new(format!(
            "installing the npm packages of {} needs npm on PATH (Node.js {NODE_MAJOR}+): {err}",
            dir.display()
        ))
    })?;
    if !output.success() {
        return Err(Error::new(format!(
            "`npm ci` in {} failed ({}): is the npm registry reachable?\n{}",
            dir.display(),
            output.status,
            output.stderr
        )));
    }
    if !installed(&dir) {
        return Err(Error::new(format!(
            "`npm ci` in {} succeeded, yet node_modules does not hold what package-lock.json pins",
            dir.display()
        )));
    }
    eprintln!(
        "test-support: installed the npm packages of {} in {:.1?}",
        dir.display(),
        started.elapsed()
    );
    Ok(dir)
}

/// The major version of the `node` on `PATH`, if it is recent enough.
fn node_major() -> Result<u32> {
    let needed = |why: String| {
        Error::new(format!(
            "these tests need Node.js {NODE_MAJOR} or later with npm on PATH \
             (Debian: `apt-get install -y nodejs npm`, or nodesource's packages): {why}"
        ))
    };
    let output = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|err| needed(format!("cannot run node: {err}")))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let major = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse().ok());
    match major {
        Some(major) if major >= NODE_MAJOR => Ok(major),
        _ => Err(needed(format!("`node --version` says {version:?}"))),
    }
}

/// Whether `dir/node_modules` holds every package `dir/package-lock.json`
/// pins, at its version: npm records what it installed in
/// `node_modules/.package-lock.json`. An optional package (one for another
/// platform) may be missing.
pub(crate) fn installed(dir: &Path) -> bool {
    let read = |path: PathBuf| -> Option<Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    let (Some(wanted), Some(present)) = (
        read(dir.join("package-lock.json")),
        read(dir.join("node_modules/.package-lock.json")),
    ) else {
        return false;
    };
    let (Some(wanted), Some(present)) = (
        wanted["packages"].as_object(),
        present["packages"].as_object(),
    ) else {
        return false;
    };
    wanted
        .iter()
        .filter(|(path, _)| !path.is_empty())
        .all(|(path, entry)| match present.get(path) {
            Some(there) => there["version"] == entry["version"],
            None => entry["optional"] == true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::TempDir;

    fn write(dir: &Path, path: &str, lock: Value) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, lock.to_string()).unwrap();
    }

    fn lock(packages: Value) -> Value {
        serde_json::json!({"lockfileVersion": 3, "packages": packages})
    }

    #[test]
    fn installed_means_every_pinned_version_is_there() {
        let dir = TempDir::new("npm-unit").unwrap();
        let pinned = lock(serde_json::json!({
            "": {"name": "x"},
            "node_modules/a": {"version": "1.0.0"},
            "node_modules/fsevents": {"version": "2.0.0", "optional": true},
        }));
        write(dir.path(), "package-lock.json", pinned);
        assert!(!installed(dir.path()), "nothing installed yet");

        let hidden = "node_modules/.package-lock.json";
        write(
            dir.path(),
            hidden,
            lock(serde_json::json!({"node_modules/a": {"version": "1.0.0"}})),
        );
        assert!(installed(dir.path()), "the optional package may be missing");

        write(
            dir.path(),
            hidden,
            lock(serde_json::json!({"node_modules/a": {"version": "0.9.0"}})),
        );
        assert!(!installed(dir.path()), "another version is stale");
    }
}
