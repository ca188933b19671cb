//! Browser clients over HTTP: CORS preflights and answers, and requests
//! from origins that may not call the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response, header};
use futures_util::stream::{self, Stream};
use tower::ServiceExt;
use typed_rpc::transport::Server;
use typed_rpc::transport::http::{Cors, HttpService, ResponseBody};
use typed_rpc::{Router, RpcResult, rpc};

#[rpc]
pub trait Bumps {
    /// How many calls ran, this one included.
    #[method(name = "bump")]
    async fn bump(&self) -> RpcResult<usize>;

    /// `0..to`, as Server-Sent Events when asked for.
    #[method(name = "count", stream)]
    async fn count(
        &self,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static>;
}

#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);

impl Bumps for Counter {
    async fn bump(&self) -> RpcResult<usize> {
        Ok(self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }

    async fn count(
        &self,
        to: u64,
    ) -> RpcResult<impl Stream<Item = RpcResult<u64>> + Send + 'static> {
        Ok(stream::iter((0..to).map(Ok)))
    }
}

const APP: &str = "https://app.example.com";
const BUMP: &str = r#"{"jsonrpc":"2.0","method":"bump","id":1}"#;

/// The service, with `cors` if any, and the count of calls it ran.
fn serve(cors: Option<Cors>) -> (HttpService, Arc<AtomicUsize>) {
    let counter = Counter::default();
    let runs = counter.0.clone();
    let mut server = Server::new(Router::new(counter.into_service()));
    if let Some(cors) = cors {
        server = server.cors(cors);
    }
    (server.into_http_service(), runs)
}

fn listed() -> Cors {
    Cors::allow_origins([APP, "http://localhost:5173"]).unwrap()
}

fn preflight(origin: &str, method: &str, headers: &str) -> Request<Body> {
    Request::options("/rpc")
        .header(header::HOST, "api.example.com")
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, method)
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, headers)
        .body(Body::empty())
        .unwrap()
}

fn post(origin: Option<&str>, content_type: &str, body: &'static str) -> Request<Body> {
    let mut request = Request::post("/rpc")
        .header(header::HOST, "api.example.com")
        .header(header::CONTENT_TYPE, content_type);
    if let Some(origin) = origin {
        request = request.header(header::ORIGIN, origin);
    }
    request.body(Body::from(body)).unwrap()
}

async fn answer(service: &HttpService, request: Request<Body>) -> Response<ResponseBody> {
    tokio::time::timeout(Duration::from_secs(5), service.clone().oneshot(request))
        .await
        .expect("an answer within 5 s")
        .unwrap()
}

fn header_of<'a>(response: &'a Response<ResponseBody>, name: &str) -> Option<&'a str> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap())
}

async fn text_of(response: Response<ResponseBody>) -> String {
    let bytes = axum::body::to_bytes(Body::new(response.into_body()), 1 << 20)
        .await
        .unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[tokio::test]
async fn without_cors_the_endpoint_writes_no_cors_header_and_refuses_preflights() {
    let (service, runs) = serve(None);
    let preflight = answer(&service, preflight(APP, "POST", "content-type")).await;
    assert_eq!(preflight.status(), 405);
    assert_eq!(header_of(&preflight, "access-control-allow-origin"), None);

    // As before: served, but a browser lets no other origin read it.
    let call = answer(&service, post(Some(APP), "application/json", BUMP)).await;
    assert_eq!(call.status(), 200);
    assert_eq!(header_of(&call, "access-control-allow-origin"), None);
    assert_eq!(header_of(&call, "vary"), None);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_preflight_from_an_allowed_origin_is_answered_before_any_body() {
    let cors = listed()
        .max_age(Duration::from_secs(600))
        .allow_credentials();
    let (service, runs) = serve(Some(cors));
    let response = answer(
        &service,
        preflight(APP, "POST", "content-type,authorization"),
    )
    .await;
    assert_eq!(response.status(), 204);
    assert_eq!(
        header_of(&response, "access-control-allow-origin"),
        Some(APP)
    );
    assert_eq!(
        header_of(&response, "access-control-allow-methods"),
        Some("POST")
    );
    assert_eq!(
        header_of(&response, "access-control-allow-headers"),
        Some("content-type, authorization, accept")
    );
    assert_eq!(header_of(&response, "access-control-max-age"), Some("600"));
    assert_eq!(
        header_of(&response, "access-control-allow-credentials"),
        Some("true")
    );
    assert!(header_of(&response, "vary").unwrap().starts_with("origin"));
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a preflight runs no call");

    // Origins match as browsers write them; a default port is no port.
    let other = answer(
        &service,
        preflight("http://localhost:5173", "POST", "content-type"),
    )
    .await;
    assert_eq!(other.status(), 204);
    assert_eq!(
        header_of(&other, "access-control-allow-origin"),
        Some("http://localhost:5173")
    );
}

#[tokio::test]
async fn refused_preflights_get_403_and_no_allow_origin() {
    let (service, _) = serve(Some(listed()));
    for (origin, method, headers, reason) in [
        ("https://evil.example", "POST", "content-type", "origin"),
        (
            "https://app.example.com:8443",
            "POST",
            "content-type",
            "origin",
        ),
        ("http://app.example.com", "POST", "content-type", "origin"),
        ("null", "POST", "content-type", "origin"),
        (APP, "PUT", "content-type", "POST"),
        (APP, "POST", "content-type,x-secret", "header"),
    ] {
        let response = answer(&service, preflight(origin, method, headers)).await;
        assert_eq!(response.status(), 403, "{origin} {method} {headers}");
        assert_eq!(header_of(&response, "access-control-allow-origin"), None);
        assert!(
            text_of(response).await.contains(reason),
            "{origin} {method} {headers}"
        );
    }

    // A header the server allows by name.
    let (service, _) = serve(Some(listed().allow_headers(["A2A-Version"]).unwrap()));
    let response = answer(
        &service,
        preflight(APP, "POST", "A2A-Version, Content-Type"),
    )
    .await;
    assert_eq!(response.status(), 204);
    assert!(
        header_of(&response, "access-control-allow-headers")
            .unwrap()
            .ends_with("a2a-version")
    );
}

#[tokio::test]
async fn answers_to_an_allowed_origin_carry_the_grant_refusals_included() {
    let cors = listed()
        .allow_credentials()
        .expose_headers(["Retry-After", "X-Request-Id"])
        .unwrap();
    let (service, runs) = serve(Some(cors));
    let call = answer(&service, post(Some(APP), "application/json", BUMP)).await;
    assert_eq!(call.status(), 200);
    assert_eq!(header_of(&call, "access-control-allow-origin"), Some(APP));
    assert_eq!(
        header_of(&call, "access-control-allow-credentials"),
        Some("true")
    );
    assert_eq!(
        header_of(&call, "access-control-expose-headers"),
        Some("retry-after, x-request-id")
    );
    assert_eq!(header_of(&call, "vary"), Some("origin"));
    assert!(text_of(call).await.contains(r#""result":1"#));

    // The page can read why it was refused.
    let refused = answer(&service, post(Some(APP), "text/plain", BUMP)).await;
    assert_eq!(refused.status(), 415);
    assert_eq!(
        header_of(&refused, "access-control-allow-origin"),
        Some(APP)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // A client that is no browser sends no Origin: served as ever, told
    // that the answer varies with it.
    let plain = answer(&service, post(None, "application/json", BUMP)).await;
    assert_eq!(plain.status(), 200);
    assert_eq!(header_of(&plain, "access-control-allow-origin"), None);
    assert_eq!(header_of(&plain, "vary"), Some("origin"));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_call_from_an_origin_not_allowed_never_runs() {
    let (service, runs) = serve(Some(listed()));
    // A request a browser sends without a preflight (no Content-Type: a
    // `Blob` body), which the server takes for JSON.
    let request = Request::post("/rpc")
        .header(header::HOST, "api.example.com")
        .header(header::ORIGIN, "https://evil.example")
        .body(Body::from(BUMP))
        .unwrap();
    let response = answer(&service, request).await;
    assert_eq!(response.status(), 403);
    assert_eq!(header_of(&response, "access-control-allow-origin"), None);
    assert_eq!(header_of(&response, "vary"), Some("origin"));
    assert_eq!(
        text_of(response).await,
        "This origin may not call this server.\n"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The server's own origin (its Host) needs no CORS and is served.
    let own = answer(
        &service,
        post(Some("https://api.example.com"), "application/json", BUMP),
    )
    .await;
    assert_eq!(own.status(), 200);
    assert_eq!(header_of(&own, "access-control-allow-origin"), None);
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // Nothing but the server's own origin.
    let (strict, strict_runs) = serve(Some(Cors::same_origin()));
    let foreign = answer(&strict, post(Some(APP), "application/json", BUMP)).await;
    assert_eq!(foreign.status(), 403);
    let asked = answer(&strict, preflight(APP, "POST", "content-type")).await;
    assert_eq!(asked.status(), 403);
    let own = answer(
        &strict,
        post(Some("https://api.example.com"), "application/json", BUMP),
    )
    .await;
    assert_eq!(own.status(), 200);
    assert_eq!(strict_runs.load(Ordering::SeqCst), 1);
}

#[test]
fn what_no_browser_could_send_is_refused_when_configured() {
    let err = Cors::allow_origins([APP, "app.example.com"]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`app.example.com` is not an origin: it needs a scheme, as in `https://app.example.com`"
    );
    let err = listed().allow_headers(["A2A Version"]).unwrap_err();
    assert_eq!(err.to_string(), "`A2A Version` is not a header name");
    assert!(listed().expose_headers(["x-ok", "bad:name"]).is_err());
}

#[tokio::test]
async fn any_origin_is_a_star_without_credentials() {
    let (service, _) = serve(Some(Cors::allow_any_origin().allow_credentials()));
    let preflight = answer(
        &service,
        preflight("https://anywhere.example", "POST", "content-type"),
    )
    .await;
    assert_eq!(preflight.status(), 204);
    assert_eq!(
        header_of(&preflight, "access-control-allow-origin"),
        Some("*")
    );
    assert_eq!(
        header_of(&preflight, "access-control-allow-credentials"),
        None
    );
    let call = answer(
        &service,
        post(Some("https://anywhere.example"), "application/json", BUMP),
    )
    .await;
    assert_eq!(call.status(), 200);
    assert_eq!(header_of(&call, "access-control-allow-origin"), Some("*"));
    assert_eq!(header_of(&call, "access-control-allow-credentials"), None);
}

#[tokio::test]
async fn event_streams_carry_the_grant() {
    let (service, _) = serve(Some(listed()));
    let request = Request::post("/rpc")
        .header(header::HOST, "api.example.com")
        .header(header::ORIGIN, APP)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .body(Body::from(
            r#"{"jsonrpc":"2.0","method":"count","params":[3],"id":7}"#,
        ))
        .unwrap();
    let response = answer(&service, request).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header_of(&response, "content-type"),
        Some("text/event-stream")
    );
    assert_eq!(
        header_of(&response, "access-control-allow-origin"),
        Some(APP)
    );
    assert_eq!(header_of(&response, "vary"), Some("origin"));
    let events = text_of(response).await;
    for item in 0..3 {
        assert!(
            events.contains(&format!(r#""result":{item},"id":7"#)),
            "{events}"
        );
    }
}
