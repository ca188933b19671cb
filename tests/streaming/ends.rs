//! The end of a stream says why, the same way over Server-Sent Events,
//! WebSocket, TCP and a byte stream such as stdio: `None` right after the
//! last item when the server's stream completed; a `Shutdown` transport
//! error, then `None`, when a graceful shutdown cut it; a `Closed` one when
//! the connection was lost.

use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use typed_rpc::client::{AnyTransport, CallError, Subscription, TransportErrorKind};
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::ws::WsConnector;
use typed_rpc::transport::{Server, ServerHandle};
use typed_rpc::{ClientError, Router};

use crate::api::{Server as TickerServer, Ticker, TickerClient};
use crate::connect;
use crate::typed::{JobError, Jobs, JobsClient, Runner};

/// Ticker and Jobs on one router.
fn router() -> Router {
    Router::builder()
        .service(TickerServer::default().into_service())
        .service(Runner.into_service())
        .build()
        .unwrap()
}

/// A stream's items until it ends, and whether it failed.
struct Ending<E> {
    items: Vec<u64>,
    last_error: Option<E>,
}

/// Reads `items` to its end, within the test's patience; an error must be last.
async fn read_to_end<E: From<ClientError> + std::fmt::Debug>(
    mut items: Subscription<u64, E>,
) -> Ending<E> {
    let mut ending = Ending {
        items: Vec::new(),
        last_error: None,
    };
    while let Some(item) = tokio::time::timeout(connect::PATIENCE, items.next())
        .await
        .expect("the stream ends")
    {
        assert!(ending.last_error.is_none(), "an item after an error");
        match item {
            Ok(item) => ending.items.push(item),
            Err(err) => ending.last_error = Some(err),
        }
    }
    ending
}

/// Where a test's client connects: a server, and the TCP address it
/// answers on (the server's own, or a proxy's in front of it).
enum Transport {
    Sse,
    WebSocket,
    Tcp,
}

impl Transport {
    async fn serve(&self) -> ServerHandle {
        let server = Server::new(router());
        match self {
            Transport::Sse | Transport::WebSocket => server.serve_http("127.0.0.1:0").await,
            Transport::Tcp => server.serve_tcp("127.0.0.1:0", Framing::Lines).await,
        }
        .unwrap()
    }

    /// A client of the server at `addr` (which may be a proxy's).
    async fn ticker(&self, addr: std::net::SocketAddr) -> TickerClient<AnyTransport> {
        TickerClient::new(self.client(addr).await)
    }

    async fn jobs(&self, addr: std::net::SocketAddr) -> JobsClient<AnyTransport> {
        JobsClient::new(self.client(addr).await)
    }

    /// One client type for every transport, so one test body serves all.
    async fn client(&self, addr: std::net::SocketAddr) -> AnyTransport {
        match self {
            Transport::Sse => AnyTransport::new(
                typed_rpc::transport::http::HttpClient::builder(&format!("http://{addr}/"))
                    .timeout(connect::PATIENCE)
                    .build()
                    .unwrap(),
            ),
            Transport::WebSocket => AnyTransport::new(
                WsConnector::new()
                    .connect(&format!("ws://{addr}/"))
                    .await
                    .unwrap(),
            ),
            Transport::Tcp => AnyTransport::new(
                StreamConnector::new(Framing::Lines)
                    .connect_tcp(addr)
                    .await
                    .unwrap(),
            ),
        }
    }
}

const TRANSPORTS: [Transport; 3] = [Transport::Sse, Transport::WebSocket, Transport::Tcp];

/// A TCP proxy in front of `upstream` whose connections can be cut.
struct Proxy {
    addr: std::net::SocketAddr,
    accepting: JoinHandle<()>,
    links: std::sync::Arc<std::sync::Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    async fn new(upstream: std::net::SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let links = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let held = links.clone();
        let accepting = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    let mut server = TcpStream::connect(upstream).await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
                held.lock().unwrap().push(link);
            }
        });
        Proxy {
            addr,
            accepting,
            links,
        }
    }

    /// Drops every connection through the proxy, as a network that fails.
    fn cut(&self) {
        self.accepting.abort();
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }
}

#[tokio::test]
async fn a_stream_that_completes_ends_with_none_and_no_error() {
    for transport in TRANSPORTS {
        let handle = transport.serve().await;
        let client = transport.ticker(handle.local_addr().unwrap()).await;
        let ending = read_to_end(client.count(0, 3).await.unwrap()).await;
        assert_eq!(ending.items, [0, 1, 2]);
        assert!(ending.last_error.is_none(), "{:?}", ending.last_error);
        handle.shutdown().await;
    }
}

#[tokio::test]
async fn a_stream_cut_by_a_shutdown_ends_with_a_shutdown_error() {
    for transport in TRANSPORTS {
        let handle = transport.serve().await;
        let addr = handle.local_addr().unwrap();
        let ticker = transport.ticker(addr).await;
        let jobs = transport.jobs(addr).await;
        let mut numbers = ticker.forever(5).await.unwrap();
        assert_eq!(numbers.next().await.unwrap().unwrap(), 0);
        let mut steps = jobs.tail().await.unwrap();
        assert_eq!(steps.next().await.unwrap().unwrap(), 0);
        let stopped = tokio::spawn(handle.shutdown());
        let ending = read_to_end(numbers).await;
        let error = ending.last_error.expect("the cut is said");
        assert!(error.is_shutdown(), "{error:?}");
        assert!(
            matches!(&error, ClientError::Transport(err) if err.kind() == TransportErrorKind::Shutdown)
        );
        // Every item before it arrived, in order.
        assert!(
            ending
                .items
                .iter()
                .copied()
                .eq(1..=ending.items.len() as u64)
        );
        // Typed the same way through a `CallError<E>`.
        let mut last: Option<Result<u32, CallError<JobError>>> = None;
        while let Some(item) = tokio::time::timeout(connect::PATIENCE, steps.next())
            .await
            .expect("the stream ends")
        {
            last = Some(item);
        }
        let error = last.expect("an item").expect_err("the cut is last");
        assert!(error.is_shutdown(), "{error:?}");
        assert!(
            tokio::time::timeout(connect::PATIENCE, stopped)
                .await
                .is_ok()
        );
    }
}

#[tokio::test]
async fn a_stream_whose_connection_is_lost_ends_with_a_closed_error() {
    for transport in TRANSPORTS {
        let handle = transport.serve().await;
        let proxy = Proxy::new(handle.local_addr().unwrap()).await;
        let client = transport.ticker(proxy.addr).await;
        let mut numbers = client.forever(5).await.unwrap();
        assert_eq!(numbers.next().await.unwrap().unwrap(), 0);
        proxy.cut();
        let ending = read_to_end(numbers).await;
        let error = ending.last_error.expect("the loss is said");
        assert!(!error.is_shutdown(), "{error:?}");
        assert!(
            matches!(&error, ClientError::Transport(err) if err.kind() == TransportErrorKind::Closed),
            "{error:?}"
        );
        handle.shutdown().await;
    }
}

/// The same three ends over a byte stream (as stdio is), served by
/// `serve_stream` on an in-memory pipe.
#[tokio::test]
async fn over_a_byte_stream_the_three_ends_read_the_same() {
    // Completed, then cut by the shutdown of the server of the stream.
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let served = Server::new(router()).serve_stream(read, write, Framing::Lines);
    let (read, write) = tokio::io::split(client_end);
    let connection = StreamConnector::new(Framing::Lines).connect(read, write);
    let client = TickerClient::new(connection.with_timeout(connect::PATIENCE));
    let ending = read_to_end(client.count(0, 2).await.unwrap()).await;
    assert_eq!(ending.items, [0, 1]);
    assert!(ending.last_error.is_none());
    let mut numbers = client.forever(5).await.unwrap();
    assert_eq!(numbers.next().await.unwrap().unwrap(), 0);
    let stopped = tokio::spawn(served.shutdown());
    let error = read_to_end(numbers)
        .await
        .last_error
        .expect("the cut is said");
    assert!(error.is_shutdown(), "{error:?}");
    assert!(
        tokio::time::timeout(connect::PATIENCE, stopped)
            .await
            .is_ok()
    );

    // Lost: the pipe between the two ends breaks.
    let (client_end, near) = tokio::io::duplex(1 << 16);
    let (far, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let _served = Server::new(router()).serve_stream(read, write, Framing::Lines);
    let pipe = tokio::spawn(async move {
        let (mut near, mut far) = (near, far);
        let _ = tokio::io::copy_bidirectional(&mut near, &mut far).await;
    });
    let (read, write) = tokio::io::split(client_end);
    let connection = StreamConnector::new(Framing::Lines).connect(read, write);
    let client = TickerClient::new(connection.with_timeout(connect::PATIENCE));
    let mut numbers = client.forever(5).await.unwrap();
    assert_eq!(numbers.next().await.unwrap().unwrap(), 0);
    pipe.abort();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let error = read_to_end(numbers)
        .await
        .last_error
        .expect("the loss is said");
    assert!(
        matches!(&error, ClientError::Transport(err) if err.kind() == TransportErrorKind::Closed),
        "{error:?}"
    );
}
