//! The fixtures beside these tests, copied where a test may change them.

use std::path::{Path, PathBuf};

use typed_rpc_test_support::scratch::TempDir;

/// `test-support/tests/provision/<name>`.
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/provision")
        .join(name)
}

/// A copy of the directory `from`, contents and all, in a fresh scratch directory.
pub fn copy(from: &Path) -> TempDir {
    let dir = TempDir::new("fixture").unwrap();
    copy_into(from, dir.path());
    dir
}

fn copy_into(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir(&target).unwrap();
            copy_into(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
