//! A real browser as a browser agent: Debian's `chromium`, headless,
//! driven by the project's `tests/browser/npm` driver (`playwright-core`,
//! pinned there), loads a page from one origin that reads the text
//! agent's card on another, sends it a message (preflighted, with
//! `A2A-Version`) and reads a stream, through the agent's CORS (the
//! framework's `Cors`). The same page from an origin the agent does not
//! allow reads nothing.
//!
//! The test provisions both, as the framework's own browser test does:
//! `/usr/bin/chromium` is installed with `apt-get install chromium` when it
//! is missing and the test runs as root (not root, it fails with the
//! command to run), and the driver's pinned npm package with `npm ci`
//! unless it is there. Node.js 20+ with npm must be on `PATH`.

#[path = "../../../tests/browser/driver.rs"]
mod driver;

use std::net::SocketAddr;

use serde_json::Value;
use tokio::net::TcpListener;
use typed_rpc::transport::http::Cors;
use typed_rpc_a2a::http::{App, ENDPOINT_PATH};
use typed_rpc_a2a::server::{InMemoryTaskStore, RequestHandler};
use typed_rpc_a2a::text_agent::{TextAgent, card};

use driver::{drive, driver};

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
    // First, before anything runs on this runtime: it may take a while.
    let driver = driver();
    let (allowed, refused) = (page_server().await, page_server().await);
    let agent = agent(allowed).await;
    let pages = [
        ("allowed", format!("http://{allowed}/?agent={agent}")),
        ("refused", format!("http://{refused}/?agent={agent}")),
    ];
    tokio::task::spawn_blocking(move || drive(driver, &pages))
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
