//! Typed JSON-RPC 2.0 APIs from Rust traits.
//!
//! Put [`#[rpc]`](rpc) on a trait and get a server dispatcher, params decoding
//! that accepts positional and named params and answers `-32602` with a
//! useful reason, and a typed client, all on the small runtime re-exported
//! here.
// The README's reference links point at files for GitHub; these definitions
// of the same labels come first, and the first definition of a label wins,
// so here they lead to the guide's modules and to the repository's pages.
#![doc = include_str!("readme_links.md")]
#![doc = include_str!("../README.md")]

pub mod guide;

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
/// - a type per schema that needs one, which keeps every value its schema
///   admits: `#/components/schemas/Pet` is `Pet`, defined once; objects are
///   structs (JSON names kept with `serde(rename)`, optional properties
///   `Option`, a present `null` kept apart from an absent member) whose
///   other members stay in a flattened `extra` map unless the schema says
///   `additionalProperties: false`; `allOf` of objects is one struct;
///   string `enum`s and `const`s are enums; `oneOf`/`anyOf` are enums
///   whose variant is decided by what the alternatives' schemas say (`const`
///   and `enum` members, `required` members, closed objects, `pattern`s),
///   then by the alternative that knows most of the value's members, so a
///   tagged enum comes back as the variant it was; integers take the width
///   their `format` or `minimum`/`maximum` say (`uint64` is `u64`, up to
///   `i128`/`u128`); arrays are `Vec`s or tuples, maps `BTreeMap`s
///   (`additionalProperties`, `patternProperties`, `propertyNames`), and a
///   type that contains itself is boxed (a newtype when it is an array of
///   itself);
/// - a method's `errors` become its error type, an enum deriving
///   [`RpcError`] (one per distinct list), so calls return
///   `Result<T, CallError<E>>` with the server's errors typed; the `data` of
///   an error is typed from our documents' `x-error-data`, else kept as a
///   `serde_json::Value`;
/// - a method with our `x-stream` extension is a streaming method whose
///   client returns a `Subscription` over SSE and WebSocket alike (its
///   unsubscribe method comes with it).
///
/// What it cannot express in Rust (`not`, `if`, `allOf` of non-objects, a
/// `$ref` to another file, an integer wider than 128 bits, ...) becomes
/// `serde_json::Value` with a compile-time warning naming the JSON Pointer
/// and the construct (`use of deprecated constant ...: openrpc: <where>:
/// <what>`; silence it with `#[allow(deprecated)]` on the enclosing
/// module). A document that is not JSON, or that the OpenRPC meta-schema
/// refuses (a missing `info`, `params` or `schema`, an unknown member, two
/// methods of one name), and a `$ref` to nothing in it, are compile errors
/// naming each place. Cargo rebuilds the crate when the document changes;
/// the path is relative to the crate's `Cargo.toml`, or else to the file
/// that calls `openrpc!`.
///
/// The generated types derive serde's traits: the crate needs `serde` (with
/// `derive`) and `serde_json` among its dependencies.
///
/// ```
/// mod calculator {
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
///     let circle = Circle { radius: 1.0, label: None, extra: Default::default() };
///     client.shapes_area(Shape::Circle(circle)).await
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
///   [`Transport`](client::Transport), returning `Result<_, ClientError>`
///   for a method whose error type is [`ErrorObject`] (as in
///   [`RpcResult`]), and `Result<_, CallError<E>>` for one whose error type
///   `E` derives [`RpcError`], with the server's error typed in
///   [`CallError::App`]; a streaming method's returns a
///   [`Subscription`](client::Subscription) of its items;
/// - `CalculatorBatch<'_, T>`, from `client.batch()`: the same methods add
///   calls to one batch message, sent when it is awaited; each request
///   gives back a [`BatchCall`](client::BatchCall) (`Copy`) whose result is read from
///   the [`BatchReplies`](client::BatchReplies), typed as the client method
///   returns it (a notification gives back nothing). The batch fails as a
///   whole only when it could not be sent or the server refused it whole
///   (`-32600` for a batch longer than the server's limit);
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
/// let mut batch = client.batch();
/// let hello = batch.greet("Ada".into(), None);
/// batch.wave();
/// let nobody = batch.greet(String::new(), None);
/// let replies = batch.await.unwrap();
/// assert_eq!(replies.get(hello).unwrap(), "Hello, Ada");
/// assert_eq!(replies.get(nobody).unwrap_err().rpc_error().unwrap().code(), -32000);
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
/// - `rename_all = "camelCase"`: the keys of named params in one of serde's
///   cases (`"lowercase"`, `"UPPERCASE"`, `"PascalCase"`, `"camelCase"`,
///   `"snake_case"`, `"SCREAMING_SNAKE_CASE"`, `"kebab-case"`,
///   `"SCREAMING-KEBAB-CASE"`), for decoding, the client, the `-32602` data
///   and the OpenRPC document alike; method names keep `name`;
/// - `crate = "::path::to::typed_rpc"`: where the generated code finds the
///   runtime, for a crate that re-exports it.
///
/// On a method, `#[method(...)]` (answered) or `#[notification(...)]`
/// (never answered, returns nothing) takes:
///
/// - `name = "..."`: the wire name (default: the Rust name, `r#type` as
///   `type`), and `aliases = ["...", ...]`: other names it answers to;
/// - `param_style` and `allow_unknown_params`: the trait's settings, for
///   this method;
/// - `idempotent`: the call may be sent twice, so an HTTP client with a
///   retry policy retries it;
/// - on two-way connections, its [`Turn`]: `exclusive` or `shared`,
///   `key = "/json/pointer"` into the params (calls on other keys do not
///   wait for each other), and `supersede` (a newer call on the same key
///   cancels an older one still waiting);
/// - `error(code = -32001, message = "Task not found")`, repeatable: an
///   error the method declares, listed in its OpenRPC document;
/// - `example(name = "...", params = "[1, 2]", result = "3")`, repeatable:
///   an example call in the OpenRPC document (`name` optional, `params` and
///   `result` JSON; a notification's example has no `result`);
/// - `stream`, or `stream(notification = "eth_subscription", unsubscribe =
///   "eth_unsubscribe")`: the method answers with a stream of items
///   (Server-Sent Events over HTTP, a subscription on WebSocket, TCP and
///   stdio, whose notification defaults to the method's name and whose
///   unsubscribe method to `<name>_unsubscribe`); it returns
///   `Result<impl Stream<Item = Result<T, E>> + Send + 'static, E>`.
///
/// A `#[deprecated]` method stays deprecated for its callers and is marked
/// so in its OpenRPC document.
///
/// A `#[method]` returns `Result<T, E>` where `E` is [`ErrorObject`] (the
/// client's error is [`ClientError`]), an enum deriving [`RpcError`] (the
/// client's error is [`CallError<E>`]), or a type with hand-written
/// `From<E> for ErrorObject` and `TryFrom<ErrorObject, Error = ErrorObject>`
/// (the client's error is `ClientError`, recovered with
/// [`ClientError::into_app_error`]). A streaming method's client returns a
/// [`Subscription<T, _>`](client::Subscription) the same way: its call and
/// each of its items fail with the client's error for their error types.
///
/// On an argument:
///
/// - `#[params]` binds the whole `params` value to it (a struct, or a `Vec`
///   for a variadic method); a struct whose fields are all optional or
///   defaulted also decodes absent params;
/// - `#[arg(rename = "taskId")]` is its key in named params, over the
///   trait's `rename_all`;
/// - `#[context] cx: &Context` hands over the request's [`Context`]; it is
///   no param.
///
/// A doc comment on an argument describes its param in the OpenRPC document.
///
/// ```
/// use futures_util::stream::{self, Stream, StreamExt};
/// use typed_rpc::{RpcResult, rpc};
///
/// #[rpc(namespace = "tasks", namespace_separator = "/", rename_all = "camelCase")]
/// pub trait Tasks {
///     /// The task `task_id`, with at most `history_length` messages.
///     #[method(
///         name = "get",
///         aliases = ["tasks/fetch"],
///         idempotent,
///         error(code = -32001, message = "Task not found"),
///         example(params = r#"{"taskId": "t1"}"#, result = r#""t1""#)
///     )]
///     async fn get(&self, task_id: String, history_length: Option<u32>) -> RpcResult<String>;
///
///     /// The events of the task, as they happen.
///     #[method(name = "watch", stream(notification = "tasks/event", unsubscribe = "tasks/unwatch"))]
///     async fn watch(&self, #[arg(rename = "id")] task_id: String)
///         -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static>;
/// }
///
/// struct Store;
///
/// impl Tasks for Store {
///     async fn get(&self, task_id: String, _history_length: Option<u32>) -> RpcResult<String> {
///         Ok(task_id)
///     }
///
///     async fn watch(&self, task_id: String)
///         -> RpcResult<impl Stream<Item = RpcResult<String>> + Send + 'static> {
///         Ok(stream::iter([Ok(format!("{task_id} started"))]))
///     }
/// }
///
/// let methods = TasksService::<()>::INFO.methods();
/// assert_eq!(methods[0].name(), "tasks/get");
/// assert_eq!(methods[0].param_list()[1].name(), "historyLength");
/// assert_eq!(methods[1].param_list()[0].name(), "id");
/// # let _ = Store.into_service();
/// ```
///
/// # Compile errors
///
/// Every mistake is reported in one pass, on the offending token, and the
/// rest of the API is still generated: a name that starts with `rpc.`, a
/// duplicate name or alias, `&mut self` or no receiver, a pattern argument,
/// a reference argument, a notification with a return type, a method that
/// does not return a `Result`, `#[params]` beside other params, generics, a
/// method that is not `async`, a streaming notification or a stream whose
/// items are not spelled out, an example that is not JSON, an unknown case
/// in `rename_all`, two params with one wire name, `#[arg]` on a `#[params]`
/// or `#[context]` argument, a turn both `exclusive` and `shared`, a `key`
/// that is no JSON Pointer, `supersede` without `exclusive` and a `key`,
/// and unknown attribute keys (the message
/// suggests the key meant, if it looks misspelt, and lists the allowed ones).
/// A param or result type without `Serialize` and `Deserialize` gets one
/// error, on the type, saying what to derive.
pub use rpc_macros::rpc;

/// Converts an error enum to and from JSON-RPC error objects: each variant is
/// one error code, and its fields travel as the object's `data`.
///
/// It implements `From<E> for ErrorObject`, so a method may return
/// `Result<T, E>` and the server sends the variant's object, and
/// `TryFrom<ErrorObject> for E` (with [`UnknownError`](client::UnknownError),
/// which gives the object back, for a code or `data` it does not know), so
/// the generated client returns [`CallError<E>`](CallError) with the variant
/// in [`CallError::App`].
///
/// ```
/// use typed_rpc::client::InProcess;
/// use typed_rpc::{CallError, Router, RpcError, rpc};
///
/// #[derive(Debug, PartialEq, RpcError)]
/// pub enum KvError {
///     /// `{"code":1001,"message":"Key not found","data":{"key":"a"}}`
///     #[rpc_error(code = 1001, message = "Key not found")]
///     NotFound { key: String },
///     /// `data` is the field itself: `{"code":1002,"message":"Full","data":100}`
///     #[rpc_error(code = 1002)]
///     Full(u32),
///     /// A code the specification reserves, taken on purpose; no `data`.
///     #[rpc_error(code = -32001, reserved, message = "Read only")]
///     ReadOnly,
/// }
///
/// #[rpc(namespace = "kv")]
/// pub trait Kv {
///     #[method(name = "get")]
///     async fn get(&self, key: String) -> Result<String, KvError>;
/// }
///
/// struct Store;
///
/// impl Kv for Store {
///     async fn get(&self, key: String) -> Result<String, KvError> {
///         Err(KvError::NotFound { key })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let kv = KvClient::new(InProcess::new(Router::new(Store.into_service())));
/// match kv.get("a".into()).await {
///     Err(CallError::App(KvError::NotFound { key })) => assert_eq!(key, "a"),
///     other => panic!("{other:?}"),
/// }
/// # }
/// ```
///
/// # Attributes
///
/// On each variant, `#[rpc_error(...)]` takes:
///
/// - `code = 1001`: required, one per variant;
/// - `message = "..."`: the error's message; by default the variant's name
///   in words (`KeyNotFound` sends "Key not found");
/// - `reserved`: allows a code in `-32768..=-32000`, which JSON-RPC reserves
///   (`-32099..=-32000` for server errors); protocols such as A2A and MCP
///   give meaning to some of them. Without it such a code is an error, so
///   that none is taken by accident.
///
/// The fields are the `data`: named fields an object of them, one unnamed
/// field its value, several an array; a variant without fields sends no
/// `data`. Every field type implements `Serialize` and `Deserialize`. A
/// member absent from the `data` reads as `null` (so an `Option` field may be
/// left out), and members the variant does not know are ignored.
///
/// On the enum, `#[rpc_error(...)]` takes:
///
/// - `crate = "..."`: where the runtime is, as `#[rpc(crate = "...")]` says;
/// - `no_display`: implement neither `Display` nor `std::error::Error` (below).
///
/// # `Display` and `Error`
///
/// The derive implements `Display`, writing each variant's message (the
/// one its error object carries), and `std::error::Error`, with no source;
/// so `CallError<E>`, an `Error` when `E` is, goes into a `Box<dyn Error>`
/// with `?`. To write them yourself, derive `thiserror::Error` as well: the
/// derive sees its `#[error("...")]` attributes and leaves both traits to
/// it. For a `Display` by hand, put `#[rpc_error(no_display)]` on the enum.
///
/// ```
/// use typed_rpc::RpcError;
///
/// #[derive(Debug, RpcError)]
/// pub enum KvError {
///     #[rpc_error(code = 1001, message = "Key not found")]
///     NotFound { key: String },
/// }
///
/// let err = KvError::NotFound { key: "a".into() };
/// assert_eq!(err.to_string(), "Key not found");
/// let _: Box<dyn std::error::Error> = Box::new(err);
/// ```
///
/// # Compile errors
///
/// A variant without a code, two variants with one code, a reserved code
/// without `reserved`, a field type without serde, generics, and a struct
/// instead of an enum, each on the offending token, all in one pass.
pub use rpc_macros::RpcError;
pub use rpc_runtime::*;
