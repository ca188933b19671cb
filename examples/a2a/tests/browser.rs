//! A real browser as a browser agent: Debian's `chromium`, headless,
//! driven by the project's `tests/browser/npm` driver (`playwright-core`,
//! pinned there), loads a page from one origin that reads the text
//! agent's card on another, sends it a message (preflighted, with
//! `A2A-Version`) and reads a stream, through the agent's CORS (the
//! framework's `Cors`). The same page from an origin the agent does not
//! allow reads nothing.
//!
//! Needs `/usr/bin/chromium` (`apt-get install -y chromium`, which `.ci/run`
//! does when it is missing) and Node.js 20+ with npm; without them the test
//! fails, saying so. The driver's npm package is installed on first use.

#[path = "../../../tests/support/process.rs"]
mod process;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpListener;
use typed_rpc::transport::http::Cors;
use typed_rpc_a2a::http::{App, ENDPOINT_PATH};
use typed_rpc_a2a::server::{InMemoryTaskStore, RequestHandler};
use typed_rpc_a2a::text_agent::{TextAgent, card};

const CHROMIUM: &str = "/usr/bin/chromium";
/// How long the driver may take, the browser's start included.
const DRIVER_LIMIT: Duration = Duration::from_secs(90);

/// The project's browser driver: `drive.js` and its pinned `playwright-core`.
fn driver_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/browser/npm")
}

/// Chromium is there, and so is the driver's package.
fn provisioned() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        assert!(
            Path::new(CHROMIUM).is_file(),
            "Debian's chromium is not installed at {CHROMIUM}: run `apt-get install -y chromium` \
             as root (.ci/run installs it when it is missing)"
        );
        if driver_dir()
            .join("node_modules/playwright-core/package.json")
            .is_file()
        {
            return;
        }
        let mut npm = Command::new("npm");
        npm.current_dir(driver_dir())
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"]);
        let (ok, _, stderr) = process::bounded(npm, DRIVER_LIMIT);
        assert!(ok, "`npm ci` in tests/browser/npm failed:\n{stderr}");
    });
}

/// What each page showed, by name: `pages` are `(name, url)`.
fn drive(pages: &[(&str, String)]) -> Value {
    provisioned();
    let mut node = Command::new("node");
    node.current_dir(driver_dir()).arg("drive.js");
    for (name, url) in pages {
        node.arg(format!("{name}={url}"));
    }
    // Ended at the limit by `SIGTERM` first: the driver closes the browser.
    let (ok, out, err) = process::bounded(node, DRIVER_LIMIT);
    assert!(ok, "the browser driver failed:\n{err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// Serves `tests/browser/page.html` on a loopback port of its own: an origin.
async fn page_server() -> SocketAddr {
    let page = axum::response::Html(include_str!("browser/page.html"));
    let app = axum::Router::new().route("/", axum::routing::get(move || async move { page }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// The text agent, letting the pages of `origin` in.
async fn agent(origin: SocketAddr) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let card = card(&format!("http://{addr}{ENDPOINT_PATH}"));
    let handler = RequestHandler::new(TextAgent, InMemoryTaskStore::new(), card);
    let cors = Cors::allow_origins([format!("http://{origin}")]).unwrap();
    let app = App::new(handler).cors(cors).build().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// What the allowed page and the refused one showed.
async fn browse() -> Value {
    let (allowed, refused) = (page_server().await, page_server().await);
    let agent = agent(allowed).await;
    let pages = [
        ("allowed", format!("http://{allowed}/?agent={agent}")),
        ("refused", format!("http://{refused}/?agent={agent}")),
    ];
    tokio::task::spawn_blocking(move || drive(&pages))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_an_allowed_origin_reads_the_card_and_calls_the_agent() {
    let seen = browse().await;
    let allowed = &seen["allowed"];
    let card = allowed["card"].as_str().unwrap();
    assert!(
        card.starts_with("text agent at http://127.0.0.1:"),
        "{seen}"
    );
    assert_eq!(allowed["send"], "hello, I am the text agent", "{seen}");
    assert_eq!(
        allowed["stream"], "text/event-stream: FROM A BROWSER (TASK_STATE_COMPLETED)",
        "{seen}"
    );
    let refused = &seen["refused"];
    for step in ["card", "send", "stream"] {
        assert_eq!(refused[step], "refused: Failed to fetch", "{step}: {seen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_s_fetch_with_the_browser_s_own_accept_gets_the_stream() {
    let seen = browse().await;
    assert_eq!(
        seen["allowed"]["defaultAccept"],
        "text/event-stream: FROM A BROWSER (TASK_STATE_COMPLETED)",
        "{seen}"
    );
}
