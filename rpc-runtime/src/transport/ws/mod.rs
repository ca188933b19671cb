//! JSON-RPC over WebSocket (cargo feature `ws`): the HTTP server accepts
//! WebSocket upgrades on its own port, and [`WsConnector`] connects to a
//! server.
//!
//! One JSON-RPC message (a request, a notification, a response or a batch)
//! travels in one text frame, both ways. Both ends may send requests at any
//! time: a handler calls back into its client through
//! [`Context::connection`](crate::Context::connection), and the client
//! answers with its [`handlers`](WsConnector::handlers). Requests on one
//! connection run concurrently (up to [`Limits::max_in_flight`]) and are
//! answered by id, in whatever order they finish.
//!
//! ```
//! use typed_rpc::rpc;
//! use typed_rpc::transport::Server;
//! use typed_rpc::transport::ws::WsConnector;
//! use typed_rpc::{Context, Router, RpcResult};
//!
//! #[rpc]
//! pub trait Greeter {
//!     #[method(name = "greet")]
//!     async fn greet(&self, #[context] cx: &Context, name: String) -> RpcResult<String>;
//! }
//!
//! struct Hello;
//!
//! impl Greeter for Hello {
//!     async fn greet(&self, cx: &Context, name: String) -> RpcResult<String> {
//!         let token = cx.headers().and_then(|h| h.get("authorization"));
//!         Ok(format!("Hello, {name} ({:?}, {token:?})", cx.transport()))
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // One port: POSTs are HTTP requests, upgrades are WebSocket connections.
//! let handle = Server::new(Router::new(Hello.into_service()))
//!     .serve_http("127.0.0.1:0")
//!     .await
//!     .unwrap();
//! let url = format!("ws://{}/", handle.local_addr().unwrap());
//!
//! let connection = WsConnector::new()
//!     .header("authorization", "Bearer t0ken")
//!     .connect(&url)
//!     .await
//!     .unwrap();
//! let greeter = GreeterClient::new(connection);
//! assert_eq!(
//!     greeter.greet("Ada".to_owned()).await.unwrap(),
//!     r#"Hello, Ada (WebSocket, Some("Bearer t0ken"))"#
//! );
//! drop(greeter); // closes the connection: close code 1000
//! handle.shutdown().await;
//! # });
//! ```
//!
//! # The server
//!
//! [`Server::serve_http`] answers a `GET` carrying a WebSocket handshake
//! (`Connection: upgrade`, `Upgrade: websocket`, `Sec-WebSocket-Version: 13`)
//! on any path with `101 Switching Protocols`, and serves the connection
//! with the same router and [`Limits`] as its `POST`s. So does
//! [`HttpService`](super::HttpService) mounted in axum or served by hyper
//! with upgrades enabled (`serve_connection(..).with_upgrades()`; axum's
//! `serve` does it); where hyper's upgrade extension is missing it answers
//! the handshake `405`. Under `serve_http` an upgraded connection keeps its
//! place under [`Limits::max_connections`] and joins the graceful shutdown;
//! mounted elsewhere it does neither, and ends when its client closes it.
//!
//! Handlers see [`TransportKind::WebSocket`](crate::TransportKind::WebSocket),
//! the peer's address, and the handshake request's headers in
//! [`Context::headers`](crate::Context::headers) (where `Authorization`
//! arrives) for every request of the connection.
//!
//! The handshake is refused with `400` when it is malformed (not HTTP/1.1,
//! no valid `Sec-WebSocket-Key`) and `426` for another protocol version.
//! One that carries an `Origin` (a browser's) is refused with `403` unless
//! that origin is the server's own (the host and port of its `Host`) or one
//! that [`Server::cors`](super::Server::cors) allows: browsers open
//! WebSockets to any site without asking it first, so this check is what
//! keeps other sites' pages out. A handshake without `Origin` (not from a
//! browser) is not refused for it. No subprotocol or extension
//! (compression) is negotiated.
//!
//! # Frames and close codes
//!
//! | what arrives | what happens |
//! |---|---|
//! | a text message | one JSON-RPC message; the reply, if any, is one text frame |
//! | a message in fragments | put together, then served like one frame |
//! | a binary message | served like a text one (JSON is UTF-8); replies are still text |
//! | invalid JSON | a `-32700` reply; the connection goes on |
//! | text that is not UTF-8 | close `1007`, as soon as the bad bytes arrive |
//! | a message over [`Limits::max_message_size`] | close `1009`, refused on the frame header before it is buffered |
//! | a broken frame (unmasked, reserved bits or opcode, a control frame fragmented or over 125 bytes, a fragment out of place) | close `1002` |
//! | a ping | a pong, at once, even between the fragments of a message |
//! | a close frame | the echo of its code and reason, then the connection ends; `1002` for a code a peer may not send |
//!
//! The server closes with `1001` (going away) on a graceful
//! [`shutdown`](super::ServerHandle::shutdown): it stops reading new
//! requests, lets those in flight finish and sends their replies, then
//! closes. It closes with `1000` a connection idle (no message, nothing in
//! flight) for [`Limits::idle_timeout`]; pings do not count as activity.
//! Under `serve_http`, when the server is full (or nearly, and the idle
//! timeout has shrunk: see [`Limits::idle_timeout_at_capacity`]), an idle
//! connection is closed with `1013` (try again later) to make room for a
//! new client, after anything still unsent. A
//! peer that stops reading its replies stops being read (backpressure).
//! Each closing end waits up to five seconds for the other's close frame.
//!
//! [`Server::serve_http`]: super::Server::serve_http
//! [`Limits`]: super::Limits
//! [`Limits::max_in_flight`]: super::Limits::max_in_flight
//! [`Limits::max_connections`]: super::Limits::max_connections
//! [`Limits::max_message_size`]: super::Limits::max_message_size
//! [`Limits::idle_timeout`]: super::Limits::idle_timeout
//! [`Limits::idle_timeout_at_capacity`]: super::Limits::idle_timeout_at_capacity

mod client;
mod frame;
mod server;

pub use client::WsConnector;
pub(crate) use server::upgrade;
