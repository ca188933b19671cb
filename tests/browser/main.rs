//! A real browser: Debian's `chromium`, headless, driven by `playwright-core`
//! (pinned in `tests/browser/npm`), loads a page from one origin that calls
//! the calculator on another with `fetch` (preflighted), over a `WebSocket`
//! and as Server-Sent Events (asked for, and with `fetch`'s own `Accept:
//! */*`), and shows the results; the test reads them
//! from the page. The same page from an origin the server does not allow
//! is refused: its `fetch` rejects, its `WebSocket` errors, and a call it
//! sends without a preflight never runs.
//!
//! The test provisions both: `/usr/bin/chromium` is installed with
//! `apt-get install chromium` when it is missing and the test runs as root
//! (not root, it fails with the command to run), and the pinned npm package
//! with `npm ci` unless it is there. Node.js 20+ with npm must be on `PATH`.
//! `TYPED_RPC_TEST_CHROMIUM` names another binary instead, which is there
//! to try what happens when it is missing.

#[path = "../../examples/common/calculator_api.rs"]
mod calculator_api;
mod driver;

use std::net::SocketAddr;

use futures_util::stream::{self, Stream};
use tokio::net::TcpListener;
use typed_rpc::transport::Server;
use typed_rpc::transport::http::{Cors, HttpClient};
use typed_rpc::{Router, RpcResult, rpc};

use calculator_api::{Calc, Calculator, CalculatorClient};
use driver::{drive, driver};

/// A streaming method beside the calculator, for the page's event stream.
#[rpc]
pub trait Ticker {
    /// `0..to`, one item each.
    #[method(name = "count", stream)]
    async fn count(
        &self,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;
}

struct Ticks;

impl Ticker for Ticks {
    async fn count(
        &self,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter((0..to).map(Ok)))
    }
}

/// Serves the page on a loopback port of its own: an origin.
async fn page_server() -> SocketAddr {
    let page = axum::response::Html(include_str!("page.html"));
    let app = axum::Router::new().route("/", axum::routing::get(move || async move { page }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_an_allowed_origin_calls_the_calculator_and_one_elsewhere_is_refused() {
    // First, before anything runs on this runtime: it may take a while.
    let driver = driver();
    let allowed = page_server().await;
    let refused = page_server().await;
    let router = Router::builder()
        .service(Calc::default().into_service())
        .service(Ticks.into_service())
        .build()
        .unwrap();
    let cors = Cors::allow_origins([format!("http://{allowed}")]).unwrap();
    let handle = Server::new(router)
        .cors(cors)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let rpc = handle.local_addr().unwrap();

    let pages = [
        ("allowed", format!("http://{allowed}/?rpc={rpc}")),
        ("refused", format!("http://{refused}/?rpc={rpc}")),
    ];
    let seen = tokio::task::spawn_blocking(move || drive(driver, &pages))
        .await
        .unwrap();

    let allowed = &seen["allowed"];
    assert_eq!(allowed["fetch"], "19", "{seen}");
    assert_eq!(allowed["ws"], "7", "{seen}");
    assert_eq!(allowed["sse"], "text/event-stream: 0 1 2", "{seen}");
    assert_eq!(allowed["sseDefault"], "text/event-stream: 0 1", "{seen}");
    assert_eq!(allowed["blind"], "sent", "{seen}");

    let refused = &seen["refused"];
    assert_eq!(refused["fetch"], "refused: Failed to fetch", "{seen}");
    assert_eq!(refused["ws"], "refused: WebSocket error", "{seen}");
    assert_eq!(refused["sse"], "refused: Failed to fetch", "{seen}");
    assert_eq!(refused["sseDefault"], "refused: Failed to fetch", "{seen}");
    assert_eq!(refused["blind"], "sent", "the browser sends it: {seen}");

    // Only the allowed page's blind update ran: the refused one's never did.
    let calculator = CalculatorClient::new(HttpClient::new(&format!("http://{rpc}/")).unwrap());
    assert_eq!(calculator.total().await.unwrap(), 1000, "{seen}");
    assert!(handle.shutdown().await);
}
