//! A temporary directory of this process's own, removed with everything in
//! it when dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::{Error, Result};

/// A fresh directory, removed (contents and all) on drop.
///
/// ```
/// use typed_rpc_test_support::scratch::TempDir;
///
/// let dir = TempDir::new("doc-example").unwrap();
/// std::fs::write(dir.path().join("note"), "hello").unwrap();
/// let path = dir.path().to_owned();
/// drop(dir);
/// assert!(!path.exists());
/// ```
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A fresh directory in the system's temporary directory, its name
    /// starting with `typed-rpc-<prefix>-`. Short, as a path that holds a
    /// unix socket must be.
    pub fn new(prefix: &str) -> Result<TempDir> {
        TempDir::new_in(&std::env::temp_dir(), prefix)
    }

    /// A fresh directory in `parent` (created if need be), its name
    /// starting with `typed-rpc-<prefix>-`.
    pub fn new_in(parent: &Path, prefix: &str) -> Result<TempDir> {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        std::fs::create_dir_all(parent)
            .map_err(|err| Error::new(format!("cannot create {}: {err}", parent.display())))?;
        loop {
            let n = COUNT.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("typed-rpc-{prefix}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                // Left behind by an earlier process of the same id.
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(err) => {
                    return Err(Error::new(format!(
                        "cannot create {}: {err}",
                        path.display()
                    )));
                }
            }
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
