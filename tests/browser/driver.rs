//! The real browser of the tests that load pages in one: Debian's
//! `chromium`, headless, driven by `npm/drive.js` (`playwright-core`,
//! pinned there), both provisioned through `typed-rpc-test-support`.
//! `tests/browser` and `examples/a2a/tests/browser.rs` mount this file.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::{debian, paths, process};

/// How long the driver may take, the browser's start included.
const DRIVER_LIMIT: Duration = Duration::from_secs(90);

/// The driver: `drive.js` with its pinned packages, and the browser it
/// opens, Debian's chromium (or the binary `TYPED_RPC_TEST_CHROMIUM`
/// names), both installed when missing. Call it before a test's runtime
/// is busy: an install may take a while.
pub fn driver() -> Command {
    let chromium = std::env::var_os("TYPED_RPC_TEST_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let chromium = debian::binary("chromium", chromium).unwrap();
    let packages =
        NodePackages::install(paths::workspace_root().join("tests/browser/npm")).unwrap();
    let mut command = packages.node("drive.js");
    command.env("CHROMIUM", chromium);
    command
}

/// What each page showed, by name: `pages` are `(name, url)`.
pub fn drive(mut driver: Command, pages: &[(&str, String)]) -> Value {
    for (name, url) in pages {
        driver.arg(format!("{name}={url}"));
    }
    // Ended at the limit by `SIGTERM` first: the driver closes the browser.
    let output = process::run(driver, DRIVER_LIMIT).unwrap();
    assert!(
        output.success(),
        "the browser driver failed:\n{}",
        output.stderr
    );
    serde_json::from_str(output.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", output.stdout, output.stderr))
}
