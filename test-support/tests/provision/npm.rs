//! `npm::NodePackages`: `npm ci` for real, skipped when node_modules holds
//! the pins, run again when it does not.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::process;

use crate::fixture;

/// What `check.js` says, run with the packages of `packages`.
fn check(packages: &NodePackages) -> Value {
    let mut node = packages.node("check.js");
    node.arg("5");
    let output = process::run(node, Duration::from_secs(30)).unwrap();
    assert!(output.success(), "{}", output.stderr);
    serde_json::from_str(&output.stdout).unwrap()
}

fn mark(dir: &Path) -> std::path::PathBuf {
    let marker = dir.join("node_modules/marker");
    std::fs::write(&marker, "").unwrap();
    marker
}

#[test]
fn pinned_packages_are_installed_kept_and_reinstalled_when_stale() {
    let first = fixture::copy(&fixture::path("npm"));
    let packages = NodePackages::install(first.path()).unwrap();
    assert_eq!(
        check(&packages),
        json!({"version": "7.0.0", "isNumber": true})
    );

    // A copy with the same node_modules: nothing to do, nothing touched.
    let kept = fixture::copy(first.path());
    let marker = mark(kept.path());
    NodePackages::install(kept.path()).unwrap();
    assert!(marker.exists(), "npm ci did not run again");

    // A copy whose node_modules holds another version: npm ci again.
    let stale = fixture::copy(first.path());
    let marker = mark(stale.path());
    let hidden = stale.path().join("node_modules/.package-lock.json");
    let text = std::fs::read_to_string(&hidden).unwrap();
    std::fs::write(&hidden, text.replace("\"7.0.0\"", "\"6.0.0\"")).unwrap();
    let packages = NodePackages::install(stale.path()).unwrap();
    assert!(!marker.exists(), "npm ci ran again");
    assert_eq!(check(&packages)["version"], "7.0.0");
}

#[test]
fn a_directory_that_is_not_there_is_named() {
    let err = NodePackages::install("/no/such/npm/dir").unwrap_err();
    assert!(err.message().contains("/no/such/npm/dir"), "{err}");
}
