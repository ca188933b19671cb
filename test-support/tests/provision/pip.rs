//! `pip::PythonPackages`: `pip install --target` for real, skipped when
//! every pin is there.

use std::time::Duration;

use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::process;
use typed_rpc_test_support::scratch::TempDir;

use crate::fixture;

#[test]
fn pinned_packages_are_installed_and_then_kept() {
    let requirements = fixture::path("requirements.txt");
    let dir = TempDir::new("pip-test").unwrap();
    let target = dir.path().join("python");
    let packages = PythonPackages::install_into(&requirements, &target).unwrap();
    assert_eq!(packages.dir(), target);
    let output = process::run(
        packages.python(fixture::path("check.py")),
        Duration::from_secs(30),
    )
    .unwrap();
    assert!(output.success(), "{}", output.stderr);
    assert_eq!(output.stdout.trim(), "1.16.0");
    assert!(
        !fixture::path("__pycache__").exists(),
        "no bytecode written beside the script"
    );

    // Another directory holding the same packages: nothing to do.
    let kept = fixture::copy(&target);
    std::fs::write(kept.path().join("marker"), "").unwrap();
    PythonPackages::install_into(&requirements, kept.path()).unwrap();
    assert!(kept.path().join("marker").exists(), "pip did not run again");
}

#[test]
fn an_unpinned_requirement_is_refused_before_pip_runs() {
    let dir = TempDir::new("pip-test").unwrap();
    let requirements = dir.path().join("requirements.txt");
    std::fs::write(&requirements, "six\n").unwrap();
    let err = PythonPackages::install_into(&requirements, dir.path().join("python")).unwrap_err();
    assert!(
        err.message().contains("`six` is not pinned with `==`"),
        "{err}"
    );
    assert!(!dir.path().join("python").exists());
}
