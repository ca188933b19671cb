//! `pip install --target <target dir>/<name> -r requirements.txt` of
//! packages pinned with `==`, once per test binary and under a lock between
//! processes; skipped when every pin is installed already.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::lock::Lock;
use crate::{Error, Result, memo, paths, process};

/// How long `pip install` may take.
const INSTALL_LIMIT: Duration = Duration::from_secs(600);

/// A directory of pinned Python packages, put on `PYTHONPATH` of the
/// scripts it runs.
///
/// ```no_run
/// use typed_rpc_test_support::{paths, pip::PythonPackages, process};
/// use std::time::Duration;
///
/// let tests = paths::workspace_root().join("tests/tls");
/// let packages = PythonPackages::install(tests.join("requirements.txt"), "tls-python").unwrap();
/// let output = process::run(packages.python(tests.join("httpx_client.py")), Duration::from_secs(60))
///     .unwrap();
/// # let _ = output;
/// ```
#[derive(Clone, Debug)]
pub struct PythonPackages {
    dir: PathBuf,
}

impl PythonPackages {
    /// Installs the pins of `requirements` into `<target dir>/<name>`,
    /// unless every one is there already. Needs `python3` with pip on
    /// `PATH`, and PyPI when it installs.
    pub fn install(requirements: impl AsRef<Path>, name: &str) -> Result<PythonPackages> {
        PythonPackages::install_into(requirements, paths::target_dir().join(name))
    }

    /// Installs the pins of `requirements` into `dir`, unless every one is
    /// there already.
    pub fn install_into(
        requirements: impl AsRef<Path>,
        dir: impl Into<PathBuf>,
    ) -> Result<PythonPackages> {
        let requirements = requirements.as_ref().to_owned();
        let dir = dir.into();
        let key = format!("pip:{}", dir.display());
        let dir = memo::once(key, || install(&requirements, dir))?;
        Ok(PythonPackages { dir })
    }

    /// The directory the packages are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `python3 <script>` with the packages on `PYTHONPATH`, writing no
    /// bytecode beside the script, its output unbuffered (so that a line it
    /// prints arrives when printed).
    pub fn python(&self, script: impl AsRef<Path>) -> Command {
        let mut command = Command::new("python3");
        command
            .env("PYTHONPATH", &self.dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONUNBUFFERED", "1")
            .arg(script.as_ref());
        command
    }
}

/// A `name==version` line of a requirements file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Pin {
    name: String,
    version: String,
}

impl Pin {
    /// Whether `dir` holds this package at this version: pip leaves a
    /// `<name>-<version>.dist-info` directory, its name normalized.
    fn installed_in(&self, dir: &Path) -> bool {
        let wanted = format!("{}-{}.dist-info", normalize(&self.name), self.version);
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.filter_map(Result::ok).any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.split_once('-').is_some_and(|(package, rest)| {
                    format!("{}-{rest}", normalize(package)).eq_ignore_ascii_case(&wanted)
                })
            })
        })
    }
}

/// A package name as wheels spell it: runs of `-`, `_` and `.` are one `_`.
fn normalize(name: &str) -> String {
    let mut normal = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '-' | '_' | '.' if normal.ends_with('_') => {}
            '-' | '_' | '.' => normal.push('_'),
            c => normal.push(c.to_ascii_lowercase()),
        }
    }
    normal
}

/// The pins of a requirements file: every line but comments and blanks
/// must be `name==version` (extras such as `pkg[http]` allowed), so that
/// what is installed here is what is installed anywhere.
pub(crate) fn pins(requirements: &Path) -> Result<Vec<Pin>> {
    let text = std::fs::read_to_string(requirements)
        .map_err(|err| Error::new(format!("cannot read {}: {err}", requirements.display())))?;
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(|line| match line.split_once("==") {
            Some((name, version)) if !version.trim().is_empty() => Ok(Pin {
                name: name.split('[').next().unwrap_or(name).trim().to_owned(),
                version: version.trim().to_owned(),
            }),
            _ => Err(Error::new(format!(
                "{}: `{line}` is not pinned with `==`: pin every package, so that a run here is a run anywhere",
                requirements.display()
            ))),
        })
        .collect()
}

fn install(requirements: &Path, dir: PathBuf) -> Result<PathBuf> {
    let pins = pins(requirements)?;
    let complete = |dir: &Path| pins.iter().all(|pin| pin.installed_in(dir));
    let _lock = Lock::take(&dir)?;
    if complete(&dir) {
        return Ok(dir);
    }
    // Into a fresh directory, moved into place whole once complete: a run
    // killed halfway leaves nothing that looks installed.
    let mut fresh = dir.clone().into_os_string();
    fresh.push(".installing");
    let fresh = PathBuf::from(fresh);
    let _ = std::fs::remove_dir_all(&fresh);
    let started = Instant::now();
    let mut pip = Command::new("python3");
    pip.args(["-m", "pip", "install", "--disable-pip-version-check"])
        .args([
            "--no-input",
            "--quiet",
            "--root-user-action=ignore",
            "--target",
        ])
        .arg(&fresh)
        .arg("-r")
        .arg(requirements);
    let output = process::run(pip, INSTALL_LIMIT).map_err(|err| {
        Error::new(format!(
            "these tests need Python 3 with pip on PATH (`python3 -m pip`): {err}"
        ))
    })?;
    if !output.success() {
        let _ = std::fs::remove_dir_all(&fresh);
        return Err(Error::new(format!(
            "`pip install -r {}` failed ({}): is pip installed (`python3 -m pip --version`) and PyPI reachable?\n{}",
            requirements.display(),
            output.status,
            output.stderr
        )));
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&fresh, &dir).map_err(|err| {
        Error::new(format!(
            "cannot move {} to {}: {err}",
            fresh.display(),
            dir.display()
        ))
    })?;
    if let Some(pin) = pins.iter().find(|pin| !pin.installed_in(&dir)) {
        return Err(Error::new(format!(
            "pip installed the requirements of {}, yet {}=={} is not in {}: is the pin spelled as the package is?",
            requirements.display(),
            pin.name,
            pin.version,
            dir.display()
        )));
    }
    eprintln!(
        "test-support: installed the Python packages of {} in {:.1?}",
        requirements.display(),
        started.elapsed()
    );
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::TempDir;

    #[test]
    fn pins_are_read_and_an_unpinned_line_is_refused() {
        let dir = TempDir::new("pip-unit").unwrap();
        let requirements = dir.path().join("requirements.txt");
        std::fs::write(
            &requirements,
            "# a comment\na2a-sdk[http-server]==1.3.0\n\nsix == 1.16.0  # trailing\n",
        )
        .unwrap();
        let pin = |name: &str, version: &str| Pin {
            name: name.to_owned(),
            version: version.to_owned(),
        };
        assert_eq!(
            pins(&requirements).unwrap(),
            [pin("a2a-sdk", "1.3.0"), pin("six", "1.16.0")]
        );

        std::fs::write(&requirements, "six==1.16.0\nrequests>=2\n").unwrap();
        let err = pins(&requirements).unwrap_err();
        assert!(
            err.message()
                .contains("`requests>=2` is not pinned with `==`"),
            "{err}"
        );
    }

    #[test]
    fn a_pin_is_installed_when_its_dist_info_is_there_under_any_spelling() {
        let dir = TempDir::new("pip-unit").unwrap();
        std::fs::create_dir(dir.path().join("typing_extensions-4.16.0.dist-info")).unwrap();
        std::fs::create_dir(dir.path().join("PyYAML-6.0.dist-info")).unwrap();
        let pin = |name: &str, version: &str| Pin {
            name: name.to_owned(),
            version: version.to_owned(),
        };
        assert!(pin("typing-extensions", "4.16.0").installed_in(dir.path()));
        assert!(pin("pyyaml", "6.0").installed_in(dir.path()));
        assert!(!pin("pyyaml", "6.0.1").installed_in(dir.path()));
        assert!(!pin("six", "1.16.0").installed_in(dir.path()));
    }
}
