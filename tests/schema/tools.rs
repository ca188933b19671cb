//! The documents checked by the OpenRPC project's tools, run with Node.js
//! from the packages pinned in `tests/schema/npm` (installed by `npm ci`
//! into the target directory when missing or stale).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use typed_rpc::Router;
use typed_rpc::transport::Server;

use super::calculator_api::{Calc, Calculator as _};
use super::process;
use super::{calculator_document, catalog};

const INSTALL: Duration = Duration::from_secs(300);
pub(super) const RUN: Duration = Duration::from_secs(120);

/// Methods test-coverage cannot call as the server expects: `sum` binds the
/// whole `params` array, which OpenRPC cannot say, so test-coverage would
/// send `[[1, 2, 4]]` for `[1, 2, 4]`.
const NOT_EXPRESSIBLE: &[&str] = &["sum"];

/// `<target>/tmp/schema-npm`, with the pinned packages installed once for
/// this test binary: its tests run in parallel, and two `npm ci` in one
/// folder would delete each other's packages.
fn installed() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    let files = ["validate.js", "coverage.js", "strict.js"];
    INSTALLED.get_or_init(|| install("npm", &files)).clone()
}

/// `npm ci` of the packages pinned in `tests/schema/<folder>` into
/// `<target>/tmp/schema-<folder>`, with `files` beside them, unless what
/// is there was installed from the same lock file; that directory.
pub(super) fn install(folder: &str, files: &[&str]) -> PathBuf {
    let ours = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schema")
        .join(folder);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("schema-{folder}"));
    std::fs::create_dir_all(&dir).expect("the npm directory");
    for file in ["package.json", "package-lock.json"].iter().chain(files) {
        std::fs::copy(ours.join(file), dir.join(file)).expect("copying the npm files");
    }
    let lock = std::fs::read(ours.join("package-lock.json")).expect("the lock file");
    let stamp = dir.join("installed-from.json");
    if std::fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return dir;
    }
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
        .current_dir(&dir);
    let (ok, out) = bounded(npm, INSTALL);
    assert!(
        ok,
        "npm ci failed (Node.js and npm must be on PATH):\n{out}"
    );
    std::fs::write(&stamp, lock).expect("the install stamp");
    dir
}

/// Runs `command` to its end within `limit`: whether it succeeded, and
/// what it printed on stdout and stderr, in that order.
pub(super) fn bounded(command: Command, limit: Duration) -> (bool, String) {
    let (ok, out, err) = process::bounded(command, limit);
    (ok, out + &err)
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
    let dir = installed();
    let calculator = write(&dir, "calculator.json", &calculator_document());
    let catalog = write(&dir, "catalog.json", &catalog::document());
    let shapes = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openrpc/specs/shapes.json");
    let mut node = Command::new("node");
    node.arg(script)
        .args([&calculator, &catalog, &shapes])
        .current_dir(&dir);
    let (ok, out) = bounded(node, RUN);
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
    let dir = installed();
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
    let no_params = write(&dir, "no-params.json", &no_params);
    let dangling = write(&dir, "dangling.json", &dangling);
    let mut node = Command::new("node");
    node.arg("validate.js")
        .arg(&no_params)
        .arg(&dangling)
        .current_dir(&dir);
    let (ok, out) = bounded(node, RUN);
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

/// Runs `node SCRIPT DOCUMENT URL ARGS...` against the calculator serving
/// on `URL`; the methods of the lines that start with `pass `.
pub(super) async fn against_the_calculator(
    dir: &Path,
    script: &'static str,
    document: PathBuf,
    args: Vec<String>,
) -> Vec<String> {
    let router = Router::new(Calc::default().into_service());
    let server = Server::new(router).serve_http("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", server.local_addr().unwrap());
    let dir = dir.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        let mut node = Command::new("node");
        node.arg(script)
            .arg(&document)
            .arg(&url)
            .args(args)
            .current_dir(&dir);
        bounded(node, RUN)
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
    let dir = installed();
    let document = write(&dir, "calculator.json", &calculator_document());
    let skip = NOT_EXPRESSIBLE.iter().map(|m| m.to_string()).collect();
    let passed = against_the_calculator(&dir, "coverage.js", document, skip).await;
    assert_eq!(passed, ["subtract", "add", "get_data", "total"]);
}
