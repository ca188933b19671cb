//! The calculator the transport tests serve: the specification's methods,
//! plus what a transport test asks of a handler (named params, the caller's
//! context, a slow call, calls back into the client). The router tests use
//! the plain calculator of [`super`], whose names leave room for the
//! services they merge with it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typed_rpc::client::{ClientExt, Params, Transport};
use typed_rpc::transport::{Limits, Server, ServerHandle};
use typed_rpc::{ClientError, Context, ErrorObject, Router, RpcResult, rpc};

/// The calculator of the specification's examples, plus what the transport tests need.
#[rpc]
pub trait Calculator {
    /// `minuend - subtrahend`; safe to repeat.
    #[method(name = "subtract", idempotent)]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// `a + b`, or `-32000` on overflow; not marked idempotent.
    #[method(name = "add")]
    async fn add(&self, a: i64, b: i64) -> RpcResult<i64>;

    /// The sum of the whole positional params.
    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    /// `["hello", 5]`.
    #[method(name = "get_data")]
    async fn get_data(&self) -> RpcResult<(String, i64)>;

    /// A greeting, sent with named params; `greeting` may be left out.
    #[method(name = "greet", param_style = "named")]
    async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String>;

    /// What the handler knows about the caller.
    #[method(name = "whoami")]
    async fn whoami(&self, #[context] cx: &Context) -> RpcResult<Value>;

    /// Answers after `millis` milliseconds.
    #[method(name = "slow")]
    async fn slow(&self, millis: u64) -> RpcResult<u64>;

    /// The running total of the notifications' values.
    #[method(name = "total")]
    async fn total(&self) -> RpcResult<i64>;

    /// Logs on the client and asks it for its style, as a language server
    /// asks its editor, before answering.
    #[method(name = "hover")]
    async fn hover(&self, #[context] cx: &Context, word: String) -> RpcResult<String>;

    /// Notifies the client of each of `steps` steps, then answers, as an MCP
    /// server reports progress: the client must see every notification
    /// before the result.
    #[method(name = "work")]
    async fn work(&self, #[context] cx: &Context, steps: u64) -> RpcResult<u64>;

    /// Adds the values to the total; never answered.
    #[notification(name = "update")]
    async fn update(&self, #[params] values: Vec<i64>);

    /// Never answered.
    #[notification(name = "notify_hello")]
    async fn notify_hello(&self, value: i64);

    /// Adds the values to the total; never answered.
    #[notification(name = "notify_sum")]
    async fn notify_sum(&self, #[params] values: Vec<i64>);
}

/// A log line the server sends its client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogMessage {
    pub level: u8,
    pub message: String,
}

/// What the client serves to the server, as an editor does to its language server.
#[rpc]
pub trait Editor {
    #[notification(name = "window/logMessage")]
    async fn log_message(&self, #[params] params: LogMessage);

    #[method(name = "workspace/configuration")]
    async fn configuration(&self, section: String) -> RpcResult<String>;
}

/// The transport tests' calculator.
#[derive(Default)]
pub struct Calc {
    pub total: AtomicI64,
    /// Told each time a `slow` call starts.
    pub slow_started: Arc<tokio::sync::Notify>,
}

/// A server of `calc` with `limits`.
pub fn server_of(calc: Calc, limits: Limits) -> Server {
    Server::new(Router::new(calc.into_service())).limits(limits)
}

/// Asserts `client` gets the right answers to the calculator's request
/// shapes: positional, whole positional params, no params, and named
/// params with and without the optional one.
pub async fn check_request_shapes<T: Transport>(client: &CalculatorClient<T>) {
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(client.sum(vec![1, 2, 4]).await.unwrap(), 7);
    assert_eq!(client.get_data().await.unwrap(), ("hello".to_owned(), 5));
    let greeting = |greeting: Option<&str>| client.greet("Ada".into(), greeting.map(Into::into));
    assert_eq!(greeting(None).await.unwrap(), "Hello, Ada!");
    assert_eq!(greeting(Some("Hi")).await.unwrap(), "Hi, Ada!");
}

/// A fresh calculator served on a loopback port, HTTP and WebSocket both.
pub async fn serve(limits: Limits) -> (ServerHandle, SocketAddr) {
    serve_calc(Calc::default(), limits).await
}

/// [`serve`] for `calc`, whose state the test watches.
pub async fn serve_calc(calc: Calc, limits: Limits) -> (ServerHandle, SocketAddr) {
    let handle = server_of(calc, limits)
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let addr = handle.local_addr().unwrap();
    (handle, addr)
}

/// What the editor side of a test connection got from the server.
#[derive(Default)]
pub struct EditorState {
    /// The log lines, in the order they arrived.
    pub logs: Mutex<Vec<LogMessage>>,
}

/// The editor a test serves to the server: it keeps each log line after
/// `log_delay`, and answers `configuration` with `<section>=compact`.
pub struct EditorHandlers {
    pub state: Arc<EditorState>,
    pub log_delay: Duration,
}

impl Editor for EditorHandlers {
    async fn log_message(&self, params: LogMessage) {
        tokio::time::sleep(self.log_delay).await;
        self.state.logs.lock().unwrap().push(params);
    }

    async fn configuration(&self, section: String) -> RpcResult<String> {
        Ok(format!("{section}=compact"))
    }
}

/// `hover`, as a language server answers it: it logs on the editor at the
/// other end of the caller's connection, then asks it for its style.
pub async fn hover_through_the_editor(cx: &Context, word: String) -> RpcResult<String> {
    let connection = cx
        .connection()
        .ok_or_else(|| ErrorObject::new(-32000, "no connection"))?;
    let editor = EditorClient::new(connection.clone());
    let log = LogMessage {
        level: 3,
        message: format!("hovering {word}"),
    };
    editor.log_message(log).await.map_err(internal)?;
    let style = editor
        .configuration("style".to_owned())
        .await
        .map_err(internal)?;
    Ok(format!("{word} ({style})"))
}

fn internal(err: ClientError) -> ErrorObject {
    ErrorObject::new(-32000, err.to_string())
}

impl Calculator for Calc {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }

    async fn add(&self, a: i64, b: i64) -> RpcResult<i64> {
        a.checked_add(b)
            .ok_or_else(|| ErrorObject::new(-32000, "Overflow").with_data(&[a, b]))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
    }

    async fn get_data(&self) -> RpcResult<(String, i64)> {
        Ok(("hello".to_owned(), 5))
    }

    async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String> {
        Ok(format!(
            "{}, {name}!",
            greeting.as_deref().unwrap_or("Hello")
        ))
    }

    async fn whoami(&self, cx: &Context) -> RpcResult<Value> {
        let header = |name: &str| {
            cx.headers()
                .into_iter()
                .flat_map(|headers| headers.get_all(name))
                .filter_map(|value| value.to_str().ok())
                .collect::<Vec<_>>()
        };
        Ok(json!({
            "transport": format!("{:?}", cx.transport()),
            "peer": cx.remote_addr().map(|addr| addr.to_string()),
            "authorization": header("authorization"),
            "x-tag": header("x-tag"),
            "connection": cx.connection().is_some(),
        }))
    }

    async fn slow(&self, millis: u64) -> RpcResult<u64> {
        self.slow_started.notify_one();
        tokio::time::sleep(Duration::from_millis(millis)).await;
        Ok(millis)
    }

    async fn total(&self) -> RpcResult<i64> {
        Ok(self.total.load(Ordering::SeqCst))
    }

    async fn hover(&self, cx: &Context, word: String) -> RpcResult<String> {
        hover_through_the_editor(cx, word).await
    }

    async fn work(&self, cx: &Context, steps: u64) -> RpcResult<u64> {
        let connection = cx
            .connection()
            .ok_or_else(|| ErrorObject::new(-32000, "no connection"))?;
        for step in 1..=steps {
            let params = Params::from_value(&[step]).map_err(internal)?;
            connection
                .notify("progress", Some(params))
                .await
                .map_err(internal)?;
        }
        Ok(steps)
    }

    async fn update(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::SeqCst);
    }

    async fn notify_hello(&self, _value: i64) {}

    async fn notify_sum(&self, values: Vec<i64>) {
        self.total.fetch_add(values.iter().sum(), Ordering::SeqCst);
    }
}
