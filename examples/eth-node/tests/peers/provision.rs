//! Installs the pinned client packages, once per test binary and only when
//! missing or stale, under a file lock so parallel test binaries take turns.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

/// `npm ci` in `dir` unless its `node_modules` holds what the lock file pins.
pub fn node_packages(dir: &Path) {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    let done = DONE.get_or_init(|| {
        let _lock = lock("eth-node-npm.lock")?;
        if installed_matches_lock(dir) {
            return Ok(());
        }
        let status = Command::new("npm")
            .current_dir(dir)
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .stdout(Stdio::null())
            .status()
            .map_err(|err| format!("these tests need Node.js 20+ with npm on PATH: {err}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!(
                "`npm ci` in {} failed ({status}): is the npm registry reachable?",
                dir.display()
            ))
        }
    });
    if let Err(err) = done {
        panic!("{err}");
    }
}

/// The directory `requirements.txt`'s pins are installed in (`pip install --target`).
pub fn python_packages(dir: &Path) -> &'static Path {
    static DONE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let done = DONE.get_or_init(|| {
        let requirements = dir.join("requirements.txt");
        let target = target_dir().join("eth-node-python");
        let stamp = target.join(".requirements.txt");
        let _lock = lock("eth-node-python.lock")?;
        let wanted = std::fs::read(&requirements).map_err(|err| err.to_string())?;
        if std::fs::read(&stamp).ok().as_ref() == Some(&wanted) {
            return Ok(target);
        }
        let _ = std::fs::remove_dir_all(&target);
        let output = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
            ])
            .args(["--root-user-action=ignore", "--target"])
            .arg(&target)
            .arg("-r")
            .arg(&requirements)
            .output()
            .map_err(|err| format!("these tests need Python 3 with pip on PATH: {err}"))?;
        if !output.status.success() {
            return Err(format!(
                "`pip install -r {}` failed ({}): is PyPI reachable?\n{}",
                requirements.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        // Written last: a stamp means a complete install of exactly these pins.
        std::fs::write(&stamp, wanted).map_err(|err| err.to_string())?;
        Ok(target)
    });
    done.as_deref().unwrap_or_else(|err| panic!("{err}"))
}

/// Whether npm's record of what it installed matches the lock file's packages.
fn installed_matches_lock(dir: &Path) -> bool {
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
    wanted.is_some() && wanted == packages(dir.join("node_modules/.package-lock.json"))
}

/// The cargo target directory this test binary was built in.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    // <target>/<profile>/deps/<test>
    exe.ancestors()
        .nth(3)
        .expect("a target directory")
        .to_path_buf()
}

/// An exclusive lock on `<target>/name` across processes (nextest runs
/// tests in parallel processes): a directory made with `create_dir`, which
/// one process alone can make, holding its owner's process id. Removed when
/// dropped; taken over when its owner is gone (a test killed mid-install)
/// or, where that cannot be told, once older than any install takes.
struct Lock(PathBuf);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lock(name: &str) -> Result<Lock, String> {
    const STALE: Duration = Duration::from_secs(600);
    let path = target_dir().join(name);
    loop {
        match std::fs::create_dir(&path) {
            Ok(()) => {
                let _ = std::fs::write(path.join("pid"), std::process::id().to_string());
                return Ok(Lock(path));
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(format!("cannot create {}: {err}", path.display())),
        }
        let owner = std::fs::read_to_string(path.join("pid")).ok();
        let owner_gone = owner.is_some_and(|pid| !Path::new("/proc").join(pid.trim()).exists())
            && Path::new("/proc/self").exists();
        let modified = std::fs::metadata(&path).and_then(|meta| meta.modified());
        let stale = modified.is_ok_and(|time| time.elapsed().is_ok_and(|age| age > STALE));
        if owner_gone || stale {
            // A file in its place (not ours) goes too.
            let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
