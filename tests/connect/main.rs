//! Connecting by URL: each scheme reaches its own transport through one
//! type, a wrong URL or setting is refused before anything is tried, and
//! connecting is bounded by the connector's timeout.

#[path = "../support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::net::TcpListener;
use typed_rpc::client::{AnyTransport, ClientExt, TransportErrorKind};
use typed_rpc::connect::{ConnectError, Endpoint};
use typed_rpc::transport::Limits;
use typed_rpc::transport::stream::Framing;
use typed_rpc::{ClientError, Connector};
use typed_rpc_test_support::cargo;

use crate::support::calculator::{Calc, CalculatorClient, serve, server_of};

/// How long a test waits for any reply.
const PATIENCE: Duration = Duration::from_secs(5);

fn connector() -> Connector {
    Connector::new().timeout(PATIENCE)
}

/// What the calculator saw of the call: its transport and headers.
async fn whoami(client: &AnyTransport) -> Value {
    client.call("whoami", None).await.unwrap()
}

/// The transport kind of a failure to connect.
fn failure_kind(err: ConnectError) -> TransportErrorKind {
    match err {
        ConnectError::Failed {
            error: ClientError::Transport(error),
            ..
        } => error.kind(),
        other => panic!("not a transport failure: {other}"),
    }
}

#[tokio::test]
async fn http_and_websocket_urls_reach_their_transports_with_the_headers() {
    let (handle, addr) = serve(Limits::default()).await;
    for (url, kind) in [
        (format!("http://{addr}/"), "Http"),
        (format!("ws://{addr}/"), "WebSocket"),
    ] {
        let client = connector()
            .header("authorization", "Bearer s3cret")
            .connect(&url)
            .await
            .unwrap();
        let seen = whoami(&client).await;
        assert_eq!(seen["transport"], kind, "{url}");
        assert_eq!(seen["authorization"], json!(["Bearer s3cret"]), "{url}");
        client.close().await;

        let calculator = CalculatorClient::new(connector().connect(&url).await.unwrap());
        assert_eq!(calculator.subtract(42, 23).await.unwrap(), 19, "{url}");
        let mut batch = calculator.batch();
        let difference = batch.subtract(5, 3);
        let sum = batch.sum(vec![1, 2, 4]);
        let replies = batch.await.unwrap();
        assert_eq!(replies.get(difference).unwrap(), 2, "{url}");
        assert_eq!(replies.get(sum).unwrap(), 7, "{url}");
    }
    handle.shutdown().await;
}

#[tokio::test]
async fn a_tcp_url_is_a_framed_connection() {
    for framing in [Framing::Lines, Framing::ContentLength] {
        let server = server_of(Calc::default(), Limits::default());
        let handle = server.serve_tcp("127.0.0.1:0", framing).await.unwrap();
        let url = format!("tcp://{}", handle.local_addr().unwrap());
        let client = connector().framing(framing).connect(&url).await.unwrap();
        assert_eq!(whoami(&client).await["transport"], "Tcp");
        let sum: i64 = client
            .call(
                "sum",
                Some(typed_rpc::client::Params::from_value(&[1, 2, 4]).unwrap()),
            )
            .await
            .unwrap();
        assert_eq!(sum, 7);
        client.close().await;
        handle.shutdown().await;
    }
}

#[tokio::test]
async fn a_stdio_url_runs_the_server_as_a_child_and_closing_ends_it() {
    let program = cargo::example("typed-rpc", "calculator").unwrap();
    let url = format!("stdio:'{}' --stdio", program.display());
    let client = connector().connect(&url).await.unwrap();
    let data: (String, i64) = client.call("get_data", None).await.unwrap();
    assert_eq!(data, ("hello".to_owned(), 5));
    // The child's stdin closes and it exits: closing returns well within
    // the grace a child gets before it is killed.
    let started = Instant::now();
    client.close().await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );

    let with_content_length = format!("{url} --framing content-length");
    let client = connector()
        .framing(Framing::ContentLength)
        .connect(&with_content_length)
        .await
        .unwrap();
    let data: (String, i64) = client.call("get_data", None).await.unwrap();
    assert_eq!(data.1, 5);
    client.close().await;
}

#[test]
fn urls_name_their_transport() {
    let stdio = Endpoint::Stdio {
        program: "./calculator".into(),
        args: vec![
            "--stdio".into(),
            "--framing".into(),
            "content-length".into(),
        ],
    };
    for (url, endpoint, again) in [
        (
            "http://127.0.0.1:3000/rpc",
            Endpoint::Http("http://127.0.0.1:3000/rpc".into()),
            None,
        ),
        (
            "HTTPS://example.com/",
            Endpoint::Http("HTTPS://example.com/".into()),
            None,
        ),
        (
            "wss://example.com/",
            Endpoint::WebSocket("wss://example.com/".into()),
            None,
        ),
        (
            "tcp://localhost:4000/",
            Endpoint::Tcp("localhost:4000".into()),
            Some("tcp://localhost:4000"),
        ),
        ("tcp://[::1]:4000", Endpoint::Tcp("[::1]:4000".into()), None),
        (
            "stdio:./calculator --stdio --framing 'content-length'",
            stdio,
            Some("stdio:./calculator --stdio --framing content-length"),
        ),
    ] {
        let parsed = Endpoint::parse(url).unwrap();
        assert_eq!(parsed, endpoint, "{url}");
        assert_eq!(parsed.to_string(), again.unwrap_or(url), "{url}");
    }
}

#[tokio::test]
async fn a_wrong_url_or_setting_is_refused_before_anything_is_tried() {
    for (url, reason) in [
        ("localhost:3000", "unsupported scheme `localhost`"),
        ("no scheme at all", "not a URL"),
        ("ftp://example.com/", "unsupported scheme `ftp`"),
        ("tcp://nohost", "tcp://HOST:PORT"),
        ("tcp://:80", "tcp://HOST:PORT"),
        ("tcp://host:99999", "tcp://HOST:PORT"),
        ("stdio:", "stdio:COMMAND"),
        ("stdio:'open", "quoted as in a shell"),
        ("http://exa mple.com/", "exa mple.com"),
    ] {
        let err = typed_rpc::connect(url).await.unwrap_err();
        assert!(err.is_invalid(), "{url}: {err}");
        assert_eq!(err.url(), url);
        assert!(err.to_string().contains(reason), "{url}: {err}");
    }
    let with_header = connector().header("x-tag", "1");
    for url in ["tcp://127.0.0.1:1", "stdio:true"] {
        let err = with_header.connect(url).await.unwrap_err();
        assert!(err.is_invalid(), "{url}: {err}");
        assert!(err.to_string().contains("headers are for"), "{err}");
    }
}

#[tokio::test]
async fn a_server_that_is_not_there_is_a_failure_to_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    for url in [format!("tcp://{addr}"), format!("ws://{addr}/")] {
        let err = connector().connect(&url).await.unwrap_err();
        assert!(!err.is_invalid());
        assert!(
            err.to_string().starts_with(&format!("connecting to {url}")),
            "{err}"
        );
        assert_eq!(failure_kind(err), TransportErrorKind::Connect, "{url}");
    }
    let err = connector()
        .connect("stdio:/nonexistent/typed-rpc-server")
        .await
        .unwrap_err();
    assert_eq!(failure_kind(err), TransportErrorKind::Connect);
}

#[tokio::test]
async fn connecting_gives_up_when_the_timeout_passes() {
    // A listener that takes connections and never answers the WebSocket
    // handshake.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut accepted = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            accepted.push(stream);
        }
    });
    let started = Instant::now();
    let err = Connector::new()
        .timeout(Duration::from_millis(200))
        .connect(&url)
        .await
        .unwrap_err();
    assert_eq!(failure_kind(err), TransportErrorKind::Timeout);
    assert!(started.elapsed() < PATIENCE, "{:?}", started.elapsed());
    held.abort();
}
