//! Starting the agent, reading its card, making clients.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use typed_rpc::CallError;
use typed_rpc::transport::http::HttpClient;
use typed_rpc_a2a::http::{CARD_PATH, ENDPOINT_PATH, app, with_bearer};
use typed_rpc_a2a::server::{BearerAuth, InMemoryTaskStore, RequestHandler, new_id};
use typed_rpc_a2a::text_agent::{TextAgent, card};
use typed_rpc_a2a::types::*;
use typed_rpc_a2a::{A2aClient, A2aError};

/// The token of the agents started with [`start_with_token`].
pub const TOKEN: &str = "t0ken";

/// A text agent on a free loopback port.
pub async fn start() -> SocketAddr {
    serve(None).await
}

/// A text agent that takes only [`TOKEN`].
pub async fn start_with_token() -> SocketAddr {
    serve(Some(TOKEN)).await
}

async fn serve(token: Option<&str>) -> SocketAddr {
    let auth = token.map(|token| BearerAuth::default().token(token, "tester"));
    start_configured(auth, |handler| handler).await
}

/// The text agent taking the callers of `auth`, its handler set up by `configure`.
pub async fn start_configured(
    auth: Option<BearerAuth>,
    configure: impl FnOnce(TextHandler) -> TextHandler,
) -> SocketAddr {
    serve_app(|mut agent_card| {
        if auth.is_some() {
            agent_card = with_bearer(agent_card);
        }
        let handler = configure(text_handler(agent_card));
        app(handler, auth).unwrap()
    })
    .await
}

/// The app `make` builds from the text agent's card, served on a free
/// loopback port.
pub async fn serve_app(make: impl FnOnce(AgentCard) -> axum::Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = make(card(&format!("http://{addr}{ENDPOINT_PATH}")));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A handler of the text agent with `agent_card`, keeping tasks in memory.
pub fn text_handler(agent_card: AgentCard) -> TextHandler {
    RequestHandler::new(TextAgent, InMemoryTaskStore::new(), agent_card)
}

/// The handler of the agents the tests start.
pub type TextHandler = RequestHandler<TextAgent, InMemoryTaskStore>;

/// A plain HTTP/1.1 exchange: the status, the headers (lower-cased) and the body.
pub async fn http(addr: SocketAddr, request: &str) -> (u16, String, String) {
    let (status, head, body) = http_exact(addr, request).await;
    (status, head.to_ascii_lowercase(), body)
}

/// A plain HTTP/1.1 exchange: the status, the headers as sent and the body.
pub async fn http_exact(addr: SocketAddr, request: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut reply))
        .await
        .expect("the agent answers")
        .unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_owned(), body.to_owned())
}

/// A JSON-RPC POST to the agent's endpoint with the extra `headers`
/// (each line ending in `\r\n`), as raw HTTP/1.1.
pub fn post(addr: SocketAddr, headers: &str, body: &str) -> String {
    format!(
        "POST /a2a/ HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The JSON-RPC reply to `body`, POSTed with `headers`: a `200`.
pub async fn call(addr: SocketAddr, headers: &str, body: &str) -> serde_json::Value {
    let (status, head, reply) = http(addr, &post(addr, headers, body)).await;
    assert_eq!(status, 200, "{head}");
    serde_json::from_str(&reply).unwrap_or_else(|err| panic!("{err}: {reply}"))
}

/// The header line of A2A 1.0.
pub const V1: &str = "a2a-version: 1.0\r\n";

/// The agent's card, fetched as a client resolves it.
pub async fn fetch_card(addr: SocketAddr) -> AgentCard {
    let request = format!("GET {CARD_PATH} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    let (status, head, body) = http(addr, &request).await;
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(head.contains("cache-control: public, max-age="), "{head}");
    assert!(head.contains("etag: \""), "{head}");
    serde_json::from_str(&body).unwrap()
}

/// Our client for the agent at `addr`, resolved from its card.
pub async fn client(addr: SocketAddr) -> A2aClient<HttpClient> {
    client_with(addr, None).await
}

/// Our client sending `token`.
pub async fn client_with(addr: SocketAddr, token: Option<&str>) -> A2aClient<HttpClient> {
    let card = fetch_card(addr).await;
    typed_rpc_a2a::client::connect(&card, token, |b| b.timeout(Duration::from_secs(10))).unwrap()
}

/// A user message of `text`.
pub fn user(text: &str) -> Message {
    Message::text(Role::User, new_id(), text)
}

/// `SendMessage` params for `message`.
pub fn send(message: Message) -> SendMessageRequest {
    SendMessageRequest::new(message)
}

/// The task of a `SendMessage` answer.
pub fn task(response: SendMessageResponse) -> Task {
    match response {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(message) => panic!("a message, not a task: {message:?}"),
    }
}

/// The status message text of `task`.
pub fn status_text(task: &Task) -> Option<&str> {
    task.status.message.as_ref()?.first_text()
}

/// Every event of a stream, with a deadline.
pub async fn collect(
    mut events: typed_rpc::client::Subscription<StreamResponse, CallError<A2aError>>,
) -> Vec<StreamResponse> {
    let mut all = Vec::new();
    let drained = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(event) = events.next().await {
            all.push(event.expect("an event, not an error"));
        }
    });
    drained.await.expect("the stream ends");
    all
}

/// The text of an artifact update's parts.
pub fn chunk_text(update: &TaskArtifactUpdateEvent) -> String {
    update
        .artifact
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
