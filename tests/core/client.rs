//! The generated client against the router, for every method shape: what it
//! sends on the wire, what it decodes, and the errors a caller acts on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typed_rpc::client::{ClientExt, InProcess, OutgoingRequest, Params, Transport};
use typed_rpc::{ClientError, ErrorObject, Router, RpcResult, rpc};

/// The arguments of an MCP-style `tools/call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// The result of an MCP-style `tools/call`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub content: Vec<String>,
    #[serde(rename = "isError")]
    pub is_error: bool,
}

/// The params of an MCP-style `tools/list`, which may be sent without params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListTools {
    pub cursor: String,
}

/// An application error, carried as an error object with the app's own codes.
#[derive(Debug, PartialEq)]
pub enum MathError {
    DivisionByZero,
    Overflow { a: i64, b: i64 },
}

#[derive(Serialize, Deserialize)]
struct Operands {
    a: i64,
    b: i64,
}

impl From<MathError> for ErrorObject {
    fn from(err: MathError) -> Self {
        match err {
            MathError::DivisionByZero => ErrorObject::new(1, "division by zero"),
            MathError::Overflow { a, b } => {
                ErrorObject::new(2, "overflow").with_data(&Operands { a, b })
            }
        }
    }
}

impl TryFrom<ErrorObject> for MathError {
    type Error = ErrorObject;

    fn try_from(err: ErrorObject) -> Result<Self, ErrorObject> {
        match (err.code(), err.data_as::<Operands>()) {
            (1, None) => Ok(MathError::DivisionByZero),
            (2, Some(Ok(Operands { a, b }))) => Ok(MathError::Overflow { a, b }),
            _ => Err(err),
        }
    }
}

/// What a `greet` handler received, echoed back.
type Received = (String, Option<String>, Option<u32>);

#[rpc]
pub trait Shapes {
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    #[method(name = "greet")]
    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received>;

    #[method(name = "greet_named", param_style = "named")]
    async fn greet_named(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received>;

    #[method(name = "tools/call")]
    async fn call_tool(&self, #[params] call: ToolCall) -> RpcResult<ToolResult>;

    #[method(name = "tools/list")]
    async fn list_tools(&self, #[params] params: Option<ListTools>) -> RpcResult<Vec<String>>;

    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;

    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    #[method(name = "nothing")]
    async fn nothing(&self) -> RpcResult<()>;

    #[method(name = "divide")]
    async fn divide(&self, a: i64, b: i64) -> Result<i64, MathError>;

    #[notification(name = "bump")]
    async fn bump(&self, by: u64);

    #[notification(name = "bump_all")]
    async fn bump_all(&self, #[params] by: Vec<u64>);
}

/// Named params for every method, except one that asks for positional:
/// only its client is used, against [`Shapes`]' server, which decodes
/// either style.
#[rpc(param_style = "named")]
pub trait NamedByDefault {
    #[method(name = "greet_named")]
    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received>;

    #[method(name = "greet", param_style = "positional")]
    async fn greet_positional(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received>;

    #[notification(name = "bump")]
    async fn bump(&self, by: u64);
}

/// A client's idea of the server's API that does not match it.
#[rpc]
pub trait Mismatched {
    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<u64>;

    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<String>;

    #[method(name = "no_such_method")]
    async fn missing(&self) -> RpcResult<u64>;
}

#[derive(Clone, Default)]
struct Server {
    bumped: Arc<AtomicU64>,
}

impl Server {
    fn bumped(&self) -> u64 {
        self.bumped.load(Ordering::SeqCst)
    }
}

impl Shapes for Server {
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        Ok(a + b)
    }

    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received> {
        Ok((name, greeting, times))
    }

    async fn greet_named(
        &self,
        name: String,
        greeting: Option<String>,
        times: Option<u32>,
    ) -> RpcResult<Received> {
        self.greet(name, greeting, times).await
    }

    async fn call_tool(&self, call: ToolCall) -> RpcResult<ToolResult> {
        Ok(ToolResult {
            content: vec![call.name, call.arguments.unwrap_or_default().to_string()],
            is_error: false,
        })
    }

    async fn list_tools(&self, params: Option<ListTools>) -> RpcResult<Vec<String>> {
        Ok(match params {
            Some(ListTools { cursor }) => vec![format!("after {cursor}")],
            None => vec!["first page".to_owned()],
        })
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".to_owned())
    }

    async fn get_data(&self) -> RpcResult<(String, i64)> {
        Ok(("hello".to_owned(), 5))
    }

    async fn nothing(&self) -> RpcResult<()> {
        Ok(())
    }

    async fn divide(&self, a: i64, b: i64) -> Result<i64, MathError> {
        if b == 0 {
            return Err(MathError::DivisionByZero);
        }
        a.checked_div(b).ok_or(MathError::Overflow { a, b })
    }

    async fn bump(&self, by: u64) {
        self.bumped.fetch_add(by, Ordering::SeqCst);
    }

    async fn bump_all(&self, by: Vec<u64>) {
        self.bumped.fetch_add(by.iter().sum(), Ordering::SeqCst);
    }
}

fn router(server: &Server) -> Router {
    Router::new(Shapes::into_service(server.clone()))
}

/// A client over the in-process transport, and the server behind it.
fn client() -> (ShapesClient<InProcess>, Server) {
    let server = Server::default();
    (ShapesClient::new(InProcess::new(router(&server))), server)
}

/// A transport that delivers in process and keeps the text of every
/// message it sent.
#[derive(Clone)]
struct Recorder {
    delivery: InProcess,
    sent: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn new(server: &Server) -> Self {
        Recorder {
            delivery: InProcess::new(router(server)),
            sent: Arc::default(),
        }
    }

    /// The messages sent since the last call, parsed.
    fn take(&self) -> Vec<Value> {
        let sent = std::mem::take(&mut *self.sent.lock().unwrap());
        sent.iter()
            .map(|text| serde_json::from_str(text).unwrap())
            .collect()
    }

    /// The one message sent since the last call.
    fn last(&self) -> Value {
        let mut sent = self.take();
        assert_eq!(sent.len(), 1, "expected one message: {sent:?}");
        sent.remove(0)
    }

    fn record(&self, text: &str) {
        self.sent.lock().unwrap().push(text.to_owned());
    }
}

impl Transport for Recorder {
    async fn send_request(&self, request: OutgoingRequest<'_>) -> Result<String, ClientError> {
        self.record(&request.to_text(Some(1)));
        self.delivery.send_request(request).await
    }

    async fn send_notification(
        &self,
        notification: OutgoingRequest<'_>,
    ) -> Result<(), ClientError> {
        self.record(&notification.to_text(None));
        self.delivery.send_notification(notification).await
    }
}

/// The `params` member of a message; `None` when it has none.
fn params_of(message: &Value) -> Option<&Value> {
    message.get("params")
}

#[tokio::test]
async fn plain_args_are_sent_positionally_and_the_result_decoded() {
    let (client, _) = client();
    assert_eq!(client.add(2, 3).await.unwrap(), 5);
    assert_eq!(client.add(-2, i64::MIN + 2).await.unwrap(), i64::MIN);

    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    assert_eq!(client.add(40, 2).await.unwrap(), 42);
    let sent = recorder.last();
    assert_eq!(sent["method"], "add");
    assert_eq!(sent["jsonrpc"], "2.0");
    assert_eq!(params_of(&sent), Some(&json!([40, 2])));
}

#[tokio::test]
async fn option_args_reach_the_server_as_given() {
    let (client, _) = client();
    let cases = [
        (None, None),
        (Some("Hi"), None),
        (None, Some(3)),
        (Some("Hi"), Some(3)),
    ];
    for (greeting, times) in cases {
        let sent = ("Ada".to_owned(), greeting.map(str::to_owned), times);
        let received = client
            .greet(sent.0.clone(), sent.1.clone(), sent.2)
            .await
            .unwrap();
        assert_eq!(received, sent);
        let received = client
            .greet_named(sent.0.clone(), sent.1.clone(), sent.2)
            .await
            .unwrap();
        assert_eq!(received, sent);
    }
}

#[tokio::test]
async fn positional_params_leave_out_trailing_nones_only() {
    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    let hi = || Some("Hi".to_owned());
    let cases = [
        (None, None, json!(["Ada"])),
        (hi(), None, json!(["Ada", "Hi"])),
        (None, Some(3), json!(["Ada", null, 3])),
        (hi(), Some(3), json!(["Ada", "Hi", 3])),
    ];
    for (greeting, times, params) in cases {
        client.greet("Ada".into(), greeting, times).await.unwrap();
        assert_eq!(params_of(&recorder.last()), Some(&params));
    }
}

#[tokio::test]
async fn named_params_leave_out_every_none() {
    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    let hi = || Some("Hi".to_owned());
    let cases = [
        (None, None, json!({"name": "Ada"})),
        (hi(), None, json!({"name": "Ada", "greeting": "Hi"})),
        (None, Some(3), json!({"name": "Ada", "times": 3})),
        (
            hi(),
            Some(3),
            json!({"name": "Ada", "greeting": "Hi", "times": 3}),
        ),
    ];
    for (greeting, times, params) in cases {
        let received = client
            .greet_named("Ada".into(), greeting.clone(), times)
            .await
            .unwrap();
        assert_eq!(received, ("Ada".to_owned(), greeting, times));
        assert_eq!(params_of(&recorder.last()), Some(&params));
    }
}

#[tokio::test]
async fn a_trait_level_param_style_applies_unless_a_method_overrides_it() {
    let server = Server::default();
    let recorder = Recorder::new(&server);
    let client = NamedByDefaultClient::new(recorder.clone());

    let received = client.greet("Ada".into(), None, Some(2)).await.unwrap();
    assert_eq!(received, ("Ada".to_owned(), None, Some(2)));
    assert_eq!(
        params_of(&recorder.last()),
        Some(&json!({"name": "Ada", "times": 2}))
    );

    let received = client
        .greet_positional("Ada".into(), None, Some(2))
        .await
        .unwrap();
    assert_eq!(received, ("Ada".to_owned(), None, Some(2)));
    assert_eq!(params_of(&recorder.last()), Some(&json!(["Ada", null, 2])));

    client.bump(4).await.unwrap();
    let sent = recorder.last();
    assert_eq!(params_of(&sent), Some(&json!({"by": 4})));
    assert_eq!(server.bumped(), 4);
}

#[tokio::test]
async fn a_params_struct_is_sent_as_the_whole_params() {
    let (client, _) = client();
    let result = client
        .call_tool(ToolCall {
            name: "search".into(),
            arguments: Some(json!({"q": "rust"})),
        })
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult {
            content: vec!["search".into(), r#"{"q":"rust"}"#.into()],
            is_error: false,
        }
    );

    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    let call = ToolCall {
        name: "list".into(),
        arguments: None,
    };
    client.call_tool(call).await.unwrap();
    assert_eq!(params_of(&recorder.last()), Some(&json!({"name": "list"})));

    // An optional `#[params]` that is `None` sends no params at all.
    assert_eq!(client.list_tools(None).await.unwrap(), ["first page"]);
    assert_eq!(params_of(&recorder.last()), None);
    let page = ListTools {
        cursor: "c1".into(),
    };
    assert_eq!(client.list_tools(Some(page)).await.unwrap(), ["after c1"]);
    assert_eq!(params_of(&recorder.last()), Some(&json!({"cursor": "c1"})));
}

#[tokio::test]
async fn a_params_vec_is_sent_as_the_whole_params() {
    let (client, _) = client();
    assert_eq!(client.sum(vec![1, 2, 4]).await.unwrap(), 7);
    assert_eq!(client.sum(vec![]).await.unwrap(), 0);

    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    client.sum(vec![1, 2, 4]).await.unwrap();
    assert_eq!(params_of(&recorder.last()), Some(&json!([1, 2, 4])));
}

#[tokio::test]
async fn a_method_without_args_sends_no_params() {
    let (client, _) = client();
    assert_eq!(client.ping().await.unwrap(), "pong");

    let recorder = Recorder::new(&Server::default());
    let client = ShapesClient::new(recorder.clone());
    client.ping().await.unwrap();
    let sent = recorder.last();
    assert_eq!(sent["method"], "ping");
    assert_eq!(params_of(&sent), None, "{sent}");
}

#[tokio::test]
async fn tuple_and_unit_results_are_decoded() {
    let (client, _) = client();
    assert_eq!(client.get_data().await.unwrap(), ("hello".to_owned(), 5));
    client.nothing().await.unwrap();
}

#[tokio::test]
async fn a_notification_runs_the_handler_before_the_call_returns() {
    let (client, server) = client();
    client.bump(3).await.unwrap();
    assert_eq!(server.bumped(), 3);
    client.bump_all(vec![10, 20]).await.unwrap();
    assert_eq!(server.bumped(), 33);

    let recorder = Recorder::new(&server);
    let client = ShapesClient::new(recorder.clone());
    client.bump(7).await.unwrap();
    let sent = recorder.last();
    assert!(sent.get("id").is_none(), "a notification has no id: {sent}");
    assert_eq!(params_of(&sent), Some(&json!([7])));
    assert_eq!(server.bumped(), 40);
}

#[tokio::test]
async fn an_application_error_is_recovered_as_its_own_type() {
    let (client, _) = client();
    assert_eq!(client.divide(7, 2).await.unwrap(), 3);

    let err = client.divide(1, 0).await.unwrap_err();
    assert_eq!(err.rpc_error().map(ErrorObject::code), Some(1));
    assert_eq!(
        err.into_app_error::<MathError>().unwrap(),
        MathError::DivisionByZero
    );

    let err = client.divide(i64::MIN, -1).await.unwrap_err();
    assert_eq!(
        err.into_app_error::<MathError>().unwrap(),
        MathError::Overflow { a: i64::MIN, b: -1 }
    );

    // An error the type does not claim comes back unchanged.
    let err = client
        .transport()
        .call::<i64>("divide", Some(Params::from_value(&("seven", 1)).unwrap()))
        .await
        .unwrap_err();
    match err.into_app_error::<MathError>() {
        Err(ClientError::Rpc(err)) => assert_eq!(err.code(), -32602, "{err}"),
        other => panic!("expected the -32602 back, got {other:?}"),
    }
}

#[tokio::test]
async fn a_result_that_does_not_fit_the_declared_type_is_a_decode_error() {
    let server = Server::default();
    let client = MismatchedClient::new(InProcess::new(router(&server)));
    for err in [
        client.get_data().await.unwrap_err(),
        client.add(1, 2).await.unwrap_err(),
    ] {
        assert!(matches!(err, ClientError::Decode(_)), "{err:?}");
        assert!(err.rpc_error().is_none());
        assert!(
            err.to_string().contains("does not fit the declared type"),
            "{err}"
        );
        // Not an application error either: it comes back unchanged.
        assert!(matches!(
            err.into_app_error::<MathError>(),
            Err(ClientError::Decode(_))
        ));
    }
    // A method the server lacks is the server's -32601, not a decode error.
    let err = client.missing().await.unwrap_err();
    assert_eq!(err.rpc_error().map(ErrorObject::code), Some(-32601));
}

#[tokio::test]
async fn untyped_calls_reach_the_same_router() {
    let (client, server) = client();
    let transport = client.transport();

    let err = transport
        .call::<Value>("no_such_method", None)
        .await
        .unwrap_err();
    let rpc = err.rpc_error().expect("a JSON-RPC error");
    assert_eq!(rpc.code(), -32601, "{rpc}");

    let sum: i64 = transport
        .call(
            "add",
            Some(Params::from_value(&json!({"a": 2, "b": 3})).unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(sum, 5);

    transport
        .notify("bump", Some(Params::from_value(&[5]).unwrap()))
        .await
        .unwrap();
    assert_eq!(server.bumped(), 5);
}

/// Floats, echoed.
#[rpc]
pub trait Floats {
    #[method(name = "echo_f64")]
    async fn echo_f64(&self, x: f64) -> RpcResult<f64>;
}

struct FloatEcho;

impl Floats for FloatEcho {
    async fn echo_f64(&self, x: f64) -> RpcResult<f64> {
        Ok(x)
    }
}

#[tokio::test]
async fn floats_arrive_exactly_as_sent() {
    // Found by the round-trip property: serde_json's default float parsing
    // may be a few units in the last place off, so the server decoded
    // 1.0667392763875421e-10 as 1.0667392763875418e-10. The workspace now
    // enables its `float_roundtrip` feature.
    let client = FloatsClient::new(InProcess::new(Router::new(FloatEcho.into_service())));
    for x in [
        1.0667392763875421e-10,
        -1.990593041044212e-308,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.1,
        -0.0,
        9007199254740993.0,
    ] {
        let back = client.echo_f64(x).await.unwrap();
        assert_eq!(back.to_bits(), x.to_bits(), "{x:e} came back as {back:e}");
    }
}
