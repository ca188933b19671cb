//! A Debian package (`chromium`, `nginx`, ...) whose binary a test needs:
//! installed with `apt-get` when the binary is missing and the tests run
//! as root, else a clear error with the command to run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::lock::Lock;
use crate::{Error, Result, memo, process, system};

/// How long `apt-get update` or `apt-get install` may take.
const APT_LIMIT: Duration = Duration::from_secs(900);

/// The path of `binary`, installing Debian's `package` first when it is
/// missing and this process runs as root (under a lock, so that test
/// binaries never run `apt-get` together; `apt-get update` at most once per
/// process, and only when the package lists are missing or the install
/// fails without it). Not root, a missing binary is an error that says
/// what to run.
///
/// ```no_run
/// use typed_rpc_test_support::debian;
///
/// let chromium = debian::binary("chromium", "/usr/bin/chromium").unwrap();
/// # let _ = chromium;
/// ```
pub fn binary(package: &str, binary: impl AsRef<Path>) -> Result<PathBuf> {
    let binary = binary.as_ref().to_owned();
    if binary.is_file() {
        return Ok(binary);
    }
    if !system::is_root() {
        return Err(missing(package, &binary));
    }
    let key = format!("apt:{package}:{}", binary.display());
    memo::once(key, || install(package, binary))
}

/// What a user who is not root is told.
fn missing(package: &str, binary: &Path) -> Error {
    Error::new(format!(
        "{} is missing: install Debian's {package} as root (`apt-get install -y {package}`), \
         or run the tests as root and they install it themselves",
        binary.display()
    ))
}

fn install(package: &str, binary: PathBuf) -> Result<PathBuf> {
    // One lock for the whole machine: dpkg's own lock fails rather than waits.
    let _lock = Lock::take(Path::new("/var/lib/dpkg"))?;
    if binary.is_file() {
        return Ok(binary);
    }
    let started = Instant::now();
    if !has_package_lists() {
        update()?;
    }
    if let Err(first) = apt_get(&["install", "-y", "-qq", "--no-install-recommends", package]) {
        // Lists too old for the mirror's current files: fetch them, once.
        update().map_err(|err| Error::new(format!("{first}\nand then {err}")))?;
        apt_get(&["install", "-y", "-qq", "--no-install-recommends", package])?;
    }
    if !binary.is_file() {
        return Err(Error::new(format!(
            "`apt-get install {package}` succeeded, yet {} is still missing: \
             is it the binary that package installs?",
            binary.display()
        )));
    }
    eprintln!(
        "test-support: installed Debian's {package} in {:.1?}",
        started.elapsed()
    );
    Ok(binary)
}

/// Whether `apt-get update` has ever fetched the package lists.
fn has_package_lists() -> bool {
    std::fs::read_dir("/var/lib/apt/lists").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|entry| entry.file_name().to_string_lossy().contains("_Packages"))
    })
}

/// `apt-get update`, at most once per process.
fn update() -> Result<()> {
    static UPDATED: OnceLock<Result<()>> = OnceLock::new();
    UPDATED.get_or_init(|| apt_get(&["update", "-qq"])).clone()
}

/// `apt-get <args>`, non-interactive, waiting for dpkg's lock if another
/// program holds it.
fn apt_get(args: &[&str]) -> Result<()> {
    let mut apt = Command::new("apt-get");
    apt.env("DEBIAN_FRONTEND", "noninteractive")
        .args(["-o", "DPkg::Lock::Timeout=600"])
        .args(args);
    let shown = format!("apt-get {}", args.join(" "));
    let output = process::run(apt, APT_LIMIT)
        .map_err(|err| Error::new(format!("cannot run `{shown}` (is this Debian?): {err}")))?;
    match output.success() {
        true => Ok(()),
        false => Err(Error::new(format!(
            "`{shown}` failed ({}): are Debian's mirrors reachable?\n{}",
            output.status, output.stderr
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_that_is_there_is_used_without_apt() {
        assert_eq!(binary("dash", "/bin/sh").unwrap(), PathBuf::from("/bin/sh"));
    }

    #[test]
    fn the_error_for_a_user_who_is_not_root_says_what_to_run() {
        let err = missing("chromium", Path::new("/usr/bin/chromium"));
        assert_eq!(
            err.message(),
            "/usr/bin/chromium is missing: install Debian's chromium as root \
             (`apt-get install -y chromium`), or run the tests as root and they install it themselves"
        );
    }
}
