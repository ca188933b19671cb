//! Typed JSON-RPC 2.0 APIs from Rust traits.
//!
//! Put [`#[rpc]`](rpc) on a trait and get a server dispatcher, params decoding
//! that accepts positional and named params and answers `-32602` with a
//! useful reason, and a typed client, all on the small runtime re-exported
//! here.
#![doc = include_str!("../README.md")]

/// A typed client for any OpenRPC server: a `#[rpc]` trait, its param and
/// result types, and so its client, from an OpenRPC document read at compile
/// time.
///
/// `openrpc!("specs/petstore.json")` reads the file (relative to the
/// crate's `Cargo.toml`) and writes, where it is called:
///
/// - a `#[rpc]` trait named after `info.title` (`Petstore`; `Api` if it has
///   none), so also `PetstoreClient<T>` and `PetstoreService<S>`: call the
///   server with the client, or implement the trait to serve the document;
/// - one method per document method, named in `snake_case`, with the wire
///   name kept by `#[method(name = ...)]`; a method without `result` is a
///   `#[notification]`; summary and description are its docs;
/// - `paramStructure`: `by-name` is `param_style = "named"` (each argument
///   named as its param; when a name is no Rust identifier, such as
///   `pet-id`, the params become one `#[params]` struct that keeps the
///   names), `by-position` is `"positional"`, `either` (the default) sends
///   positional params; a param without `required: true` is an `Option`;
/// - a type per schema that needs one: `#/components/schemas/Pet` is `Pet`,
///   defined once; objects are structs (JSON names kept with
///   `serde(rename)`, optional properties `Option`), string `enum`s are
///   enums, `oneOf`/`anyOf` untagged enums, arrays `Vec`, maps `BTreeMap`,
///   and the primitives `String`, `i64`, `f64`, `bool`.
///
/// What it cannot express in Rust (`allOf`, `not`, a `$ref` to another
/// file, ...) becomes `serde_json::Value` with a compile-time warning
/// (`use of deprecated constant ...: openrpc: <where>: <what>`; silence it
/// with `#[allow(deprecated)]` on the enclosing module). A document that is
/// not JSON, or not OpenRPC, is a compile error that says what is wrong and
/// where. Cargo rebuilds the crate when the document changes.
///
/// The generated types derive serde's traits: the crate needs `serde` (with
/// `derive`) and `serde_json` among its dependencies.
///
/// ```
/// mod calculator {
///     # #![allow(deprecated)] // the document's `allOf`, on purpose
///     typed_rpc::openrpc!("tests/openrpc/specs/calculator.json");
/// }
///
/// use calculator::{CalculatorClient, Circle, Shape};
/// use typed_rpc::ClientError;
/// use typed_rpc::client::Transport;
///
/// // Over any transport: HTTP, WebSocket, a child process's stdio, ...
/// async fn area_of_a_unit_circle<T: Transport>(
///     client: &CalculatorClient<T>,
/// ) -> Result<f64, ClientError> {
///     assert_eq!(client.subtract(42, 23).await?, 19);
///     client.shapes_area(Shape::Circle(Circle { radius: 1.0, label: None })).await
/// }
/// ```
pub use rpc_macros::openrpc;
/// Turns a trait into a JSON-RPC API: the trait to implement, a service that
/// routes calls to an implementation, a typed client, and a static
/// description of the methods.
///
/// # What it generates
///
/// For `#[rpc] pub trait Calculator { ... }`:
///
/// - `Calculator` itself, with each `async fn` returning a `Send` future, the
///   supertraits `Send + Sync + 'static`, and `into_service(self)`;
/// - `CalculatorService<S>`, an [`RpcService`] for any `S: Calculator`;
/// - `CalculatorClient<T>`, the same methods over any
///   [`Transport`](client::Transport), returning `Result<_, ClientError>`;
/// - `CalculatorService::INFO`, the [`ServiceInfo`] of the API.
///
/// ```
/// use typed_rpc::client::InProcess;
/// use typed_rpc::{Context, ErrorObject, Router, RpcResult, rpc};
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// pub struct Greeting {
///     pub name: String,
///     pub punctuation: Option<String>,
/// }
///
/// /// A greeter.
/// #[rpc(namespace = "greeter", namespace_separator = "/")]
/// pub trait Greeter {
///     /// Greets `name`; `greeting` may be left out.
///     #[method(name = "greet", aliases = ["hello"])]
///     async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String>;
///
///     /// Takes the whole `params` object.
///     #[method(name = "greetStruct", param_style = "named", idempotent)]
///     async fn greet_struct(&self, #[params] greeting: Greeting) -> RpcResult<String>;
///
///     /// Says where the call came from; the context is not a param.
///     #[method(name = "origin")]
///     async fn origin(&self, #[context] cx: &Context) -> RpcResult<String>;
///
///     /// Never answered.
///     #[notification(name = "wave")]
///     async fn wave(&self);
/// }
///
/// struct Server;
///
/// impl Greeter for Server {
///     async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String> {
///         if name.is_empty() {
///             return Err(ErrorObject::new(-32000, "Nobody to greet"));
///         }
///         Ok(format!("{}, {name}", greeting.as_deref().unwrap_or("Hello")))
///     }
///
///     async fn greet_struct(&self, greeting: Greeting) -> RpcResult<String> {
///         Ok(format!("Hello, {}{}", greeting.name, greeting.punctuation.unwrap_or_default()))
///     }
///
///     async fn origin(&self, cx: &Context) -> RpcResult<String> {
///         Ok(format!("{:?}", cx.transport()))
///     }
///
///     async fn wave(&self) {}
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let router = Router::new(Server.into_service());
/// let reply = router
///     .handle(br#"{"jsonrpc":"2.0","method":"hello","params":{"name":"Ada"},"id":1}"#)
///     .await;
/// assert_eq!(reply.unwrap(), r#"{"jsonrpc":"2.0","result":"Hello, Ada","id":1}"#);
///
/// let client = GreeterClient::new(InProcess::new(router));
/// assert_eq!(client.greet("Ada".into(), Some("Hi".into())).await.unwrap(), "Hi, Ada");
/// let greeting = Greeting { name: "Bob".into(), punctuation: Some("!".into()) };
/// assert_eq!(client.greet_struct(greeting).await.unwrap(), "Hello, Bob!");
/// assert_eq!(client.origin().await.unwrap(), "InProcess");
/// let err = client.greet(String::new(), None).await.unwrap_err();
/// assert_eq!(err.rpc_error().unwrap().code(), -32000);
/// client.wave().await.unwrap();
///
/// let info = GreeterService::INFO;
/// assert_eq!(info.methods()[0].name(), "greeter/greet");
/// assert_eq!(info.methods()[0].alias_names(), ["hello"]);
/// assert!(info.methods()[0].param_list()[1].is_optional());
/// assert!(info.methods()[3].is_notification());
/// # }
/// ```
///
/// # Attributes
///
/// On the trait, `#[rpc(...)]` takes:
///
/// - `namespace = "eth"` and `namespace_separator = "_"` (the default): every
///   method's wire name becomes `eth_<name>`; aliases are used as written;
/// - `param_style = "positional"` (the default) or `"named"`: how the client
///   sends params (the server always accepts both);
/// - `allow_unknown_params`: ignore named params the method does not take,
///   instead of answering `-32602`;
/// - `crate = "::path::to::typed_rpc"`: where the generated code finds the runtime.
///
/// On a method, `#[method(...)]` or `#[notification(...)]` takes `name`
/// (default: the Rust name), `aliases = [...]`, `param_style`,
/// `allow_unknown_params` and `idempotent` (an HTTP client with a retry
/// policy may send the call again). A `#[method]` returns `Result<T, E>`
/// with `E: Into<ErrorObject>`; a `#[notification]` returns nothing.
///
/// On an argument, `#[params]` binds the whole `params` value (a struct or a
/// `Vec`), and `#[context] cx: &Context` hands over the request's
/// [`Context`].
///
/// # Compile errors
///
/// Every mistake is reported in one pass, on the offending token, and the
/// rest of the API is still generated: a name that starts with `rpc.`, a
/// duplicate name or alias, `&mut self` or no receiver, a pattern argument,
/// a reference argument, a notification with a return type, a method that
/// does not return a `Result`, `#[params]` beside other params, generics, a
/// method that is not `async`, and unknown attribute keys (the message
/// suggests the key meant, if it looks misspelt, and lists the allowed ones).
/// A param or result type without `Serialize` and `Deserialize` gets one
/// error, on the type, saying what to derive.
pub use rpc_macros::rpc;
pub use rpc_runtime::*;
