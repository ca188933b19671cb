//! The Agent Card over HTTP: cache headers, conditional requests, and CORS
//! for the card and the endpoint (`tests/browser.rs` has a real browser).

use std::net::SocketAddr;

use typed_rpc::transport::http::Cors;
use typed_rpc_a2a::http::{App, CARD_PATH};
use typed_rpc_a2a::server::BearerAuth;

use crate::support::*;

const PAGE: &str = "http://page.example:8080";

fn get_card(addr: SocketAddr, headers: &str) -> String {
    format!("GET {CARD_PATH} HTTP/1.1\r\nhost: {addr}\r\n{headers}connection: close\r\n\r\n")
}

/// The value of the header `name` (lower case) in a response head.
fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
        .map(str::trim)
}

#[tokio::test]
async fn the_card_is_cacheable_and_answered_304_when_unchanged_by_tag_or_date() {
    let addr = start().await;
    let (status, head, body) = http(addr, &get_card(addr, "")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "cache-control"), Some("public, max-age=300"));
    let etag = header(&head, "etag").expect("an ETag").to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    assert!(body.contains("\"supportedInterfaces\""));

    for matching in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", {etag}"),
        "*".into(),
    ] {
        let (status, head, body) = http(
            addr,
            &get_card(addr, &format!("if-none-match: {matching}\r\n")),
        )
        .await;
        assert_eq!(status, 304, "{matching}");
        assert_eq!(body, "", "a 304 has no body");
        assert_eq!(header(&head, "etag"), Some(etag.as_str()));
        assert_eq!(header(&head, "cache-control"), Some("public, max-age=300"));
    }
    let (status, _, _) = http(addr, &get_card(addr, "if-none-match: \"stale\"\r\n")).await;
    assert_eq!(status, 200);

    // Dates are case-sensitive: read this header as it was sent.
    let (_, exact, _) = http_exact(addr, &get_card(addr, "")).await;
    let modified = exact
        .lines()
        .find_map(|line| line.strip_prefix("last-modified: "))
        .expect("a Last-Modified")
        .trim()
        .to_owned();
    assert!(modified.ends_with(" GMT"), "{modified}");
    let since = |date: &str| get_card(addr, &format!("if-modified-since: {date}\r\n"));
    assert_eq!(http(addr, &since(&modified)).await.0, 304);
    assert_eq!(
        http(addr, &since("Thu, 01 Jan 1970 00:00:00 GMT")).await.0,
        200
    );
    assert_eq!(http(addr, &since("not a date")).await.0, 200);
    // If-None-Match goes first: a stale tag is a changed card, whatever the date.
    let both = format!("if-none-match: \"stale\"\r\nif-modified-since: {modified}\r\n");
    assert_eq!(http(addr, &get_card(addr, &both)).await.0, 200);
}

async fn cors_agent(auth: Option<BearerAuth>) -> SocketAddr {
    serve_app(|card| {
        let mut app = App::new(text_handler(card)).cors(Cors::allow_origins([PAGE]).unwrap());
        if let Some(auth) = auth {
            app = app.auth(auth);
        }
        app.build().unwrap()
    })
    .await
}

#[tokio::test]
async fn pages_of_an_allowed_origin_read_the_card_and_call_the_endpoint() {
    let addr = cors_agent(None).await;
    let (_, head, _) = http(addr, &get_card(addr, &format!("origin: {PAGE}\r\n"))).await;
    assert_eq!(header(&head, "access-control-allow-origin"), Some(PAGE));
    assert!(
        header(&head, "vary").is_some_and(|v| v.contains("origin")),
        "{head}"
    );
    let (status, head, _) = http(
        addr,
        &get_card(addr, "origin: http://elsewhere.example\r\n"),
    )
    .await;
    assert_eq!(
        status, 200,
        "the card is public; the browser keeps it from the page"
    );
    assert_eq!(header(&head, "access-control-allow-origin"), None);

    let preflight = format!(
        "OPTIONS /a2a HTTP/1.1\r\nhost: {addr}\r\norigin: {PAGE}\r\naccess-control-request-method: POST\r\naccess-control-request-headers: content-type, a2a-version, a2a-extensions\r\nconnection: close\r\n\r\n"
    );
    let (status, head, _) = http(addr, &preflight).await;
    assert_eq!(status, 204, "{head}");
    let allowed = header(&head, "access-control-allow-headers").unwrap_or_default();
    for name in ["content-type", "a2a-version", "a2a-extensions"] {
        assert!(allowed.to_ascii_lowercase().contains(name), "{allowed}");
    }
    let request = post(addr, &format!("{V1}origin: {PAGE}\r\n"), HELLO);
    let (status, head, body) = http(addr, &request).await;
    assert_eq!(status, 200);
    assert_eq!(header(&head, "access-control-allow-origin"), Some(PAGE));
    assert!(body.contains("hello, I am the text agent"), "{body}");
    let elsewhere = post(
        addr,
        &format!("{V1}origin: http://elsewhere.example\r\n"),
        HELLO,
    );
    assert_eq!(http(addr, &elsewhere).await.0, 403);
}

#[tokio::test]
async fn with_auth_a_preflight_passes_and_a_refusal_is_readable_by_the_page() {
    let addr = cors_agent(Some(BearerAuth::default().token(TOKEN, "page"))).await;
    let preflight = format!(
        "OPTIONS /a2a HTTP/1.1\r\nhost: {addr}\r\norigin: {PAGE}\r\naccess-control-request-method: POST\r\naccess-control-request-headers: authorization, content-type, a2a-version\r\nconnection: close\r\n\r\n"
    );
    assert_eq!(http(addr, &preflight).await.0, 204);
    let (status, head, _) =
        http(addr, &post(addr, &format!("{V1}origin: {PAGE}\r\n"), HELLO)).await;
    assert_eq!(status, 401);
    assert_eq!(header(&head, "access-control-allow-origin"), Some(PAGE));
    let authorized = format!("{V1}origin: {PAGE}\r\nauthorization: Bearer {TOKEN}\r\n");
    let (status, _, body) = http(addr, &post(addr, &authorized, HELLO)).await;
    assert_eq!(status, 200, "{body}");
}

const HELLO: &str = r#"{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}}}"#;
