//! The documents checked by the OpenRPC project's tools, run with Node.js
//! from the packages pinned in `tests/schema/npm` (installed there by the
//! test with `npm ci` when missing or stale).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use typed_rpc::Router;
use typed_rpc::transport::Server;
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::scratch::TempDir;
use typed_rpc_test_support::{paths, process};

use super::calculator_api::{Calc, Calculator as _};
use super::{calculator_document, catalog};

pub(super) const RUN: Duration = Duration::from_secs(120);

/// Methods test-coverage cannot call as the server expects: `sum` binds the
/// whole `params` array, which OpenRPC cannot say, so test-coverage would
/// send `[[1, 2, 4]]` for `[1, 2, 4]`.
const NOT_EXPRESSIBLE: &[&str] = &["sum"];

/// A directory of this test's own for the documents it writes.
pub(super) fn scratch() -> TempDir {
    TempDir::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")), "schema").unwrap()
}

/// The packages pinned in `tests/schema/<folder>`, installed there.
pub(super) fn packages(folder: &str) -> NodePackages {
    NodePackages::install(paths::workspace_root().join("tests/schema").join(folder)).unwrap()
}

/// Runs `command` to its end within [`RUN`]: whether it succeeded, and
/// what it printed on stdout and stderr, in that order.
fn finish(command: Command) -> (bool, String) {
    let output = process::run(command, RUN).unwrap();
    (output.success(), output.stdout + &output.stderr)
}

/// `node tests/schema/npm/<script> <args>`, run to its end.
fn node<I: AsRef<OsStr>>(script: &str, args: impl IntoIterator<Item = I>) -> (bool, String) {
    let mut node = packages("npm").node(script);
    node.args(args);
    finish(node)
}

pub(super) fn write(dir: &Path, name: &str, document: &serde_json::Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(document).unwrap()).expect("a document");
    path
}

/// Runs `node SCRIPT` on the calculator's and the catalog's documents, and
/// the committed one of `tests/openrpc/specs/shapes.json` (every serde
/// shape, a stream, typed errors): how many lines start with `verdict`.
fn on_our_documents(script: &str, verdict: &str) -> usize {
    let dir = scratch();
    let calculator = write(dir.path(), "calculator.json", &calculator_document());
    let catalog = write(dir.path(), "catalog.json", &catalog::document());
    let shapes = paths::workspace_root().join("tests/openrpc/specs/shapes.json");
    let (ok, out) = node(script, [&calculator, &catalog, &shapes]);
    assert!(ok, "{out}");
    out.lines().filter(|l| l.starts_with(verdict)).count()
}

#[test]
fn schema_utils_finds_the_documents_valid() {
    assert_eq!(on_our_documents("validate.js", "valid "), 3);
}

#[test]
fn ajv_in_strict_mode_compiles_every_schema_of_the_documents() {
    assert_eq!(on_our_documents("strict.js", "strict "), 3);
}

#[test]
fn the_check_fails_a_document_without_params_or_with_a_dangling_ref() {
    let dir = scratch();
    let mut no_params = calculator_document();
    no_params["methods"][0]
        .as_object_mut()
        .unwrap()
        .remove("params");
    let mut dangling = catalog::document();
    dangling["components"]["schemas"]
        .as_object_mut()
        .unwrap()
        .remove("Price");
    let no_params = write(dir.path(), "no-params.json", &no_params);
    let dangling = write(dir.path(), "dangling.json", &dangling);
    let (ok, out) = node("validate.js", [&no_params, &dangling]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("invalid") && out.contains("no-params.json"),
        "{out}"
    );
    assert!(
        out.contains("unresolved $ref") && out.contains("#/components/schemas/Price"),
        "{out}"
    );
}

/// Runs `script DOCUMENT URL ARGS...` (a `node` command) against the
/// calculator serving on `URL`; the methods of the lines that start with
/// `pass `.
pub(super) async fn against_the_calculator(
    mut script: Command,
    document: PathBuf,
    args: Vec<String>,
) -> Vec<String> {
    let router = Router::new(Calc::default().into_service());
    let server = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", server.local_addr().unwrap());
    let out = tokio::task::spawn_blocking(move || {
        script.arg(&document).arg(&url).args(args);
        finish(script)
    })
    .await
    .unwrap();
    server.shutdown().await;
    let (ok, out) = out;
    assert!(ok, "{out}");
    out.lines()
        .filter_map(|l| l.strip_prefix("pass "))
        .filter_map(|l| l.split(' ').next())
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_coverage_calls_every_example_and_the_calculator_keeps_its_promises() {
    let dir = scratch();
    let document = write(dir.path(), "calculator.json", &calculator_document());
    let skip = NOT_EXPRESSIBLE.iter().map(|m| m.to_string()).collect();
    let coverage = packages("npm").node("coverage.js");
    let passed = against_the_calculator(coverage, document, skip).await;
    assert_eq!(passed, ["subtract", "add", "get_data", "total"]);
}
