//! Connection extensions: a `login` method or a layer sets them once, and
//! every later call on the same connection reads them, on WebSocket, TCP
//! and any byte stream; never another connection's, and nothing over plain
//! HTTP, where each request proves itself.

use std::sync::atomic::{AtomicU64, Ordering};

use typed_rpc::http::header::AUTHORIZATION;
use typed_rpc::middleware::{CallLayer, CallRequest, Next, Reply};
use typed_rpc::transport::stream::{Framing, StreamConnector};
use typed_rpc::transport::{Connection, Server, ServerHandle};
use typed_rpc::{Context, ErrorObject, Router, RpcResult, rpc};

use crate::connect;

/// The user a token stands for.
#[derive(Clone, Debug, PartialEq)]
struct User(String);

/// The calls a connection has made, counted by a layer that sets it up on
/// the connection's first call.
struct Calls(AtomicU64);

#[rpc(namespace = "session", namespace_separator = ".")]
pub trait Session {
    /// Logs the connection in for the calls after this one.
    #[method(name = "login")]
    async fn login(&self, #[context] cx: &Context, token: String) -> RpcResult<String>;

    /// Ends the connection's login; `true` if it had one.
    #[method(name = "logout")]
    async fn logout(&self, #[context] cx: &Context) -> RpcResult<bool>;

    /// Who the layer found the caller to be.
    #[method(name = "whoami")]
    async fn whoami(&self, #[context] cx: &Context) -> RpcResult<String>;

    /// How many calls the connection has made, this one included.
    #[method(name = "calls")]
    async fn calls(&self, #[context] cx: &Context) -> RpcResult<u64>;
}

fn user_of(token: &str) -> Option<User> {
    token
        .strip_suffix("-token")
        .map(|name| User(name.to_owned()))
}

struct Sessions;

impl Session for Sessions {
    async fn login(&self, cx: &Context, token: String) -> RpcResult<String> {
        let connection = cx.connection_extensions().ok_or_else(|| {
            ErrorObject::new(
                4000,
                "this transport has no connection to log in: send Authorization with each request",
            )
        })?;
        let user = user_of(&token).ok_or_else(|| ErrorObject::new(4001, "Unauthorized"))?;
        connection.insert(user.clone());
        Ok(user.0)
    }

    async fn logout(&self, cx: &Context) -> RpcResult<bool> {
        let connection = cx.connection_extensions();
        Ok(connection.is_some_and(|c| c.remove::<User>().is_some()))
    }

    async fn whoami(&self, cx: &Context) -> RpcResult<String> {
        // The layer lets no call without a user through.
        Ok(cx.extensions().get::<User>().unwrap().0.clone())
    }

    async fn calls(&self, cx: &Context) -> RpcResult<u64> {
        let calls = cx.connection_extensions().and_then(|c| c.get::<Calls>());
        Ok(calls.map_or(0, |calls| calls.0.load(Ordering::SeqCst)))
    }
}

/// Lets `session.login` and `session.logout` through; every other call
/// needs the connection's user, or (over HTTP) a bearer token, and hands
/// the user to the handler in the call's extensions.
struct Authenticate;

impl CallLayer for Authenticate {
    async fn call<'a>(&'a self, mut request: CallRequest<'a>, next: Next<'a>) -> Reply {
        if let Some(connection) = request.context().connection_extensions() {
            let calls = connection.get_or_insert_with(|| Calls(AtomicU64::new(0)));
            calls.0.fetch_add(1, Ordering::SeqCst);
        }
        if matches!(request.method(), "session.login" | "session.logout") {
            return next.run(request).await;
        }
        let context = request.context();
        let from_connection = context
            .connection_extensions()
            .and_then(|connection| connection.get::<User>());
        let from_header = || {
            let header = context.headers()?.get(AUTHORIZATION)?.to_str().ok()?;
            user_of(header.strip_prefix("Bearer ")?)
        };
        let user = match from_connection {
            Some(user) => User::clone(&user),
            None => match from_header() {
                Some(user) => user,
                None => return request.reject(&ErrorObject::new(4001, "Unauthorized")),
            },
        };
        request.context_mut().extensions_mut().insert(user);
        next.run(request).await
    }
}

fn router() -> Router {
    Router::builder()
        .service(Sessions.into_service())
        .layer(Authenticate)
        .build()
        .unwrap()
}

/// A login holds for the later calls of its connection alone, until the
/// logout.
async fn check_a_connection(first: Connection, other: Connection) {
    let (first, other) = (SessionClient::new(first), SessionClient::new(other));
    let unauthorized = first.whoami().await.unwrap_err();
    assert_eq!(unauthorized.rpc_error().unwrap().code(), 4001);
    assert_eq!(first.login("alice-token".into()).await.unwrap(), "alice");
    assert_eq!(first.whoami().await.unwrap(), "alice");
    assert_eq!(first.whoami().await.unwrap(), "alice");
    // Another connection to the same server is not logged in.
    let err = other.whoami().await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4001);
    assert_eq!(other.login("bob-token".into()).await.unwrap(), "bob");
    assert_eq!(other.whoami().await.unwrap(), "bob");
    assert_eq!(first.whoami().await.unwrap(), "alice");
    // What a layer set up on the first call counts every call after it.
    assert_eq!(first.calls().await.unwrap(), 6);
    assert_eq!(other.calls().await.unwrap(), 4);
    assert!(first.logout().await.unwrap());
    assert!(!first.logout().await.unwrap());
    let err = first.whoami().await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4001);
    assert_eq!(other.whoami().await.unwrap(), "bob");
}

#[tokio::test]
async fn a_login_holds_for_the_later_calls_of_its_tcp_connection() {
    let handle = Server::new(router())
        .serve_tcp("127.0.0.1:0", Framing::Lines)
        .await
        .unwrap();
    check_a_connection(connect::tcp(&handle).await, connect::tcp(&handle).await).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_login_holds_for_the_later_calls_of_its_websocket() {
    let handle = serve_http().await;
    let first = connect::websocket(&handle).await;
    check_a_connection(first, connect::websocket(&handle).await).await;
    assert!(handle.shutdown().await);
}

#[tokio::test]
async fn a_login_holds_for_the_later_calls_of_a_byte_stream() {
    let server = Server::new(router());
    let connect = || {
        let (client_end, server_end) = tokio::io::duplex(4096);
        let (read, write) = tokio::io::split(server_end);
        let handle = server.serve_stream(read, write, Framing::Lines);
        let (read, write) = tokio::io::split(client_end);
        let connection = StreamConnector::new(Framing::Lines).connect(read, write);
        (handle, connection.with_timeout(connect::PATIENCE))
    };
    let (first_handle, first) = connect();
    let (other_handle, other) = connect();
    check_a_connection(first, other).await;
    assert!(first_handle.shutdown().await);
    assert!(other_handle.shutdown().await);
}

async fn serve_http() -> ServerHandle {
    Server::new(router())
        .serve_http("127.0.0.1:0")
        .await
        .unwrap()
}

#[tokio::test]
async fn plain_http_has_no_connection_to_log_in_and_proves_each_request() {
    let handle = serve_http().await;
    let anonymous = SessionClient::new(connect::http(&handle));
    let err = anonymous.login("alice-token".into()).await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4000);
    // A login would not have held: each request stands alone.
    let err = anonymous.whoami().await.unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), 4001);
    assert_eq!(
        anonymous
            .calls()
            .await
            .unwrap_err()
            .rpc_error()
            .unwrap()
            .code(),
        4001
    );

    let addr = handle.local_addr().unwrap();
    let alice = typed_rpc::transport::http::HttpClient::builder(&format!("http://{addr}/"))
        .header("authorization", "Bearer alice-token")
        .build()
        .unwrap();
    let alice = SessionClient::new(alice);
    assert_eq!(alice.whoami().await.unwrap(), "alice");
    assert_eq!(alice.calls().await.unwrap(), 0, "no connection to count on");
    assert!(handle.shutdown().await);
}
