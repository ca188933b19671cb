//! Where things are: the workspace's root, and the target directory and
//! profile the running test binary was built into.

use std::path::{Path, PathBuf};

/// The workspace's root, the directory of the top `Cargo.toml`.
///
/// ```
/// let root = typed_rpc_test_support::paths::workspace_root();
/// assert!(root.join("Cargo.lock").is_file());
/// ```
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support/ sits in the workspace's root")
}

/// The profile directory the running test binary was built into
/// (`target/debug`): a test binary lives in `<profile dir>/deps/`.
///
/// ```no_run
/// let profile = typed_rpc_test_support::paths::profile_dir();
/// assert!(profile.ends_with("debug") || profile.ends_with("release"));
/// ```
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("a test binary lives in <target>/<profile>/deps/")
        .to_owned()
}

/// The target directory (`target`, or `$CARGO_TARGET_DIR`) of the running
/// test binary: where installed packages and built examples go, so that
/// `cargo clean` removes them.
///
/// ```no_run
/// let python = typed_rpc_test_support::paths::target_dir().join("interop-python");
/// # let _ = python;
/// ```
pub fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .expect("a profile directory sits in a target directory")
        .to_owned()
}
