//! A lock between processes, so that test binaries running at once never
//! install into one place together: an advisory lock on a file, which the
//! system releases when its holder ends, however it ends.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// How long to wait for another process's install: the slowest there is
/// (Chromium from Debian's mirrors) with room to spare.
const PATIENCE: Duration = Duration::from_secs(20 * 60);

/// A lock held on a place (a directory being installed into, a package
/// manager) until dropped.
///
/// The lock files live in the system's temporary directory, named after the
/// place, so that every process on the machine that guards the same place
/// takes the same lock, whatever its target directory.
///
/// ```
/// use typed_rpc_test_support::lock::Lock;
///
/// let place = std::env::temp_dir().join("lock-doc-example");
/// let held = Lock::take(&place).unwrap();
/// assert!(Lock::try_take(&place).unwrap().is_none(), "taken once at a time");
/// drop(held);
/// assert!(Lock::try_take(&place).unwrap().is_some());
/// ```
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    // Dropping the file releases the lock.
    _file: File,
}

impl Lock {
    /// Takes the lock on `place`, waiting (up to 20 minutes) while another
    /// process or thread holds it.
    pub fn take(place: &Path) -> Result<Lock> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(lock) = Lock::try_take(place)? {
                return Ok(lock);
            }
            if Instant::now() > deadline {
                return Err(Error::new(format!(
                    "{} stayed locked by another process for {PATIENCE:?} (lock file {})",
                    place.display(),
                    lock_file(place).display()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Takes the lock on `place` if no one holds it; `None` if someone does.
    pub fn try_take(place: &Path) -> Result<Option<Lock>> {
        let path = lock_file(place);
        loop {
            let file = open(&path)?;
            match file.try_lock() {
                // The holder before us removes the file as it lets go: what
                // we locked must still be the file at the path, or the
                // next taker, making a new one, would hold it too.
                Ok(()) if same_file(&file, &path) => {
                    return Ok(Some(Lock { path, _file: file }));
                }
                Ok(()) => continue,
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(err)) => {
                    return Err(Error::new(format!("cannot lock {}: {err}", path.display())));
                }
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Still held: no one else can have the file at this path now.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `file` is the file now at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(there)) => (open.dev(), open.ino()) == (there.dev(), there.ino()),
        _ => false,
    }
}

/// `<temp dir>/typed-rpc-test-locks/<place's name>-<hash of its path>.lock`.
fn lock_file(place: &Path) -> PathBuf {
    let name: String = place
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(64)
        .collect();
    let hash = fnv1a(place.as_os_str().as_encoded_bytes());
    locks_dir().join(format!("{name}-{hash:016x}.lock"))
}

/// The directory of the lock files, open to every user (as `/tmp` is), so
/// that a test run as an unprivileged user can take a lock a root run made.
fn locks_dir() -> PathBuf {
    std::env::temp_dir().join("typed-rpc-test-locks")
}

/// Opens (creating) a lock file; read-only when another user made it, which
/// is enough to lock it.
fn open(path: &Path) -> Result<File> {
    let dir = path
        .parent()
        .expect("a lock file sits in the locks directory");
    if !dir.is_dir() {
        std::fs::create_dir_all(dir)
            .map_err(|err| Error::new(format!("cannot create {}: {err}", dir.display())))?;
        set_mode(dir, 0o1777);
    }
    match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(file) => {
            set_mode(path, 0o666);
            Ok(file)
        }
        Err(err) if err.kind() == ErrorKind::PermissionDenied => File::open(path)
            .map_err(|err| Error::new(format!("cannot open {}: {err}", path.display()))),
        Err(err) => Err(Error::new(format!("cannot open {}: {err}", path.display()))),
    }
}

/// Best effort: a mode that only the file's owner may set.
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

/// FNV-1a: a hash that is the same in every process and every build, unlike
/// std's, which may change with the toolchain.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
