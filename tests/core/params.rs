//! Params decoding as a client of the router sees it: both shapes for every
//! method, optional params, `#[params]`, and the exact `-32602` detail for
//! each way params can be wrong.

use crate::support::{call, code_of, error_of, result_of};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typed_rpc::{Router, RpcResult, rpc};

/// The arguments of an MCP-style `tools/call`.
#[derive(Debug, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

#[rpc]
pub trait Strict {
    #[method(name = "subtract")]
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;

    /// Echoes what it received, so a test sees `None`s.
    #[method(name = "greet")]
    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        punctuation: Option<char>,
    ) -> RpcResult<(String, Option<String>, Option<char>)>;

    #[method(name = "tools/call")]
    async fn call_tool(&self, #[params] call: ToolCall) -> RpcResult<Value>;

    #[method(name = "sum")]
    async fn sum(&self, #[params] values: Vec<i64>) -> RpcResult<i64>;

    #[method(name = "ping")]
    async fn ping(&self) -> RpcResult<String>;

    /// Ignores unknown named params; the other methods of this trait do not.
    #[method(name = "lenient_subtract", allow_unknown_params)]
    async fn lenient_subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64>;
}

struct StrictImpl;

impl Strict for StrictImpl {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }

    async fn greet(
        &self,
        name: String,
        greeting: Option<String>,
        punctuation: Option<char>,
    ) -> RpcResult<(String, Option<String>, Option<char>)> {
        Ok((name, greeting, punctuation))
    }

    async fn call_tool(&self, call: ToolCall) -> RpcResult<Value> {
        Ok(json!({"tool": call.name, "arguments": call.arguments}))
    }

    async fn sum(&self, values: Vec<i64>) -> RpcResult<i64> {
        Ok(values.iter().sum())
    }

    async fn ping(&self) -> RpcResult<String> {
        Ok("pong".to_owned())
    }

    async fn lenient_subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }
}

/// Every method ignores unknown named params.
#[rpc(allow_unknown_params)]
pub trait Lenient {
    #[method(name = "divide")]
    async fn divide(&self, dividend: i64, divisor: i64) -> RpcResult<i64>;

    #[method(name = "status")]
    async fn status(&self) -> RpcResult<String>;
}

struct LenientImpl;

impl Lenient for LenientImpl {
    async fn divide(&self, dividend: i64, divisor: i64) -> RpcResult<i64> {
        Ok(dividend / divisor)
    }

    async fn status(&self) -> RpcResult<String> {
        Ok("ok".to_owned())
    }
}

fn router() -> Router {
    Router::builder()
        .service(StrictImpl.into_service())
        .service(LenientImpl.into_service())
        .build()
        .expect("the two services define distinct methods")
}

/// The reply to `method` called with `params` (raw JSON text, or `None` for no `params` member).
async fn ask(method: &str, params: Option<&str>) -> Value {
    let request = match params {
        Some(params) => {
            format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":1}}"#)
        }
        None => format!(r#"{{"jsonrpc":"2.0","method":"{method}","id":1}}"#),
    };
    let reply = call(&router(), &request).await;
    assert_eq!(reply["id"], 1, "{reply}");
    reply
}

/// Asserts the reply is `-32602` with exactly `data`.
#[track_caller]
fn assert_invalid_params(reply: &Value, data: Value) {
    assert_eq!(code_of(reply), -32602, "{reply}");
    assert_eq!(error_of(reply)["data"], data, "{reply}");
}

#[tokio::test]
async fn a_method_takes_positional_and_named_params() {
    assert_eq!(result_of(&ask("subtract", Some("[42, 23]")).await), 19);
    assert_eq!(
        result_of(&ask("subtract", Some(r#"{"minuend": 42, "subtrahend": 23}"#)).await),
        19
    );
    assert_eq!(
        result_of(&ask("subtract", Some(r#"{"subtrahend": 23, "minuend": 42}"#)).await),
        19
    );
}

#[tokio::test]
async fn trailing_options_may_be_left_out_of_positional_params() {
    let cases = [
        (r#"["Ada"]"#, json!(["Ada", null, null])),
        (r#"["Ada", "Hi"]"#, json!(["Ada", "Hi", null])),
        (r#"["Ada", null, "!"]"#, json!(["Ada", null, "!"])),
        (r#"["Ada", "Hi", "!"]"#, json!(["Ada", "Hi", "!"])),
    ];
    for (params, received) in cases {
        assert_eq!(
            result_of(&ask("greet", Some(params)).await),
            &received,
            "{params}"
        );
    }
}

#[tokio::test]
async fn optional_named_params_may_be_absent_or_null() {
    let cases = [
        (r#"{"name": "Ada"}"#, json!(["Ada", null, null])),
        (
            r#"{"name": "Ada", "greeting": null, "punctuation": null}"#,
            json!(["Ada", null, null]),
        ),
        (
            r#"{"punctuation": "!", "name": "Ada"}"#,
            json!(["Ada", null, "!"]),
        ),
        (
            r#"{"greeting": "Hi", "name": "Ada", "punctuation": null}"#,
            json!(["Ada", "Hi", null]),
        ),
    ];
    for (params, received) in cases {
        assert_eq!(
            result_of(&ask("greet", Some(params)).await),
            &received,
            "{params}"
        );
    }
}

#[tokio::test]
async fn a_params_struct_takes_the_whole_params_object() {
    assert_eq!(
        result_of(
            &ask(
                "tools/call",
                Some(r#"{"name": "search", "arguments": {"q": "rust"}}"#)
            )
            .await
        ),
        &json!({"tool": "search", "arguments": {"q": "rust"}})
    );
    // An optional field of the struct may be left out.
    assert_eq!(
        result_of(&ask("tools/call", Some(r#"{"name": "list"}"#)).await),
        &json!({"tool": "list", "arguments": null})
    );
    // A missing required field is -32602 naming the `#[params]` argument.
    assert_invalid_params(
        &ask("tools/call", Some(r#"{"arguments": {}}"#)).await,
        json!({"param": "call", "reason": "missing field `name`"}),
    );
    assert_invalid_params(
        &ask("tools/call", None).await,
        json!({"param": "call", "reason": "missing params: missing field `name`"}),
    );
}

#[tokio::test]
async fn a_params_vec_takes_the_whole_params_array() {
    assert_eq!(result_of(&ask("sum", Some("[1, 2, 4]")).await), 7);
    assert_eq!(result_of(&ask("sum", Some("[]")).await), 0);
    assert_invalid_params(
        &ask("sum", Some(r#"[1, "two"]"#)).await,
        json!({"param": "values", "reason": "invalid type: string \"two\", expected i64"}),
    );
    assert_invalid_params(
        &ask("sum", Some(r#"{"values": [1]}"#)).await,
        json!({"param": "values", "reason": "invalid type: map, expected a sequence"}),
    );
}

#[tokio::test]
async fn a_method_without_args_accepts_absent_params_an_empty_array_and_an_empty_object() {
    for params in [None, Some("[]"), Some("{}"), Some(" [ ] "), Some("{ }")] {
        assert_eq!(
            result_of(&ask("ping", params).await),
            "pong",
            "params {params:?}"
        );
    }
    assert_invalid_params(
        &ask("ping", Some("[1]")).await,
        json!({"position": 0, "reason": "too many params: `ping` takes 0, got 1"}),
    );
    assert_invalid_params(
        &ask("ping", Some(r#"{"verbose": true}"#)).await,
        json!({"param": "verbose", "reason": "unknown param: `ping` takes no params"}),
    );
}

#[tokio::test]
async fn a_wrong_type_names_the_param_its_position_and_serdes_reason() {
    let data = json!({
        "param": "subtrahend",
        "position": 1,
        "reason": "invalid type: string \"a\", expected i64",
    });
    assert_invalid_params(&ask("subtract", Some(r#"[42, "a"]"#)).await, data.clone());
    assert_invalid_params(
        &ask("subtract", Some(r#"{"minuend": 42, "subtrahend": "a"}"#)).await,
        data,
    );
    // Named params report the param that was wrong, wherever it stands in the object.
    assert_invalid_params(
        &ask("subtract", Some(r#"{"subtrahend": 23, "minuend": 4.5}"#)).await,
        json!({
            "param": "minuend",
            "position": 0,
            "reason": "invalid type: floating point `4.5`, expected i64",
        }),
    );
    // `null` is no value for a required param.
    assert_invalid_params(
        &ask("subtract", Some("[null, 23]")).await,
        json!({"param": "minuend", "position": 0, "reason": "invalid type: null, expected i64"}),
    );
    // An optional param of the wrong type is still an error, not `None`.
    assert_invalid_params(
        &ask("greet", Some(r#"["Ada", 5]"#)).await,
        json!({
            "param": "greeting",
            "position": 1,
            "reason": "invalid type: integer `5`, expected a string",
        }),
    );
}

#[tokio::test]
async fn a_missing_required_param_is_named() {
    let data = json!({"param": "subtrahend", "position": 1, "reason": "missing required param"});
    assert_invalid_params(&ask("subtract", Some("[42]")).await, data.clone());
    assert_invalid_params(&ask("subtract", Some(r#"{"minuend": 42}"#)).await, data);
    let first = json!({"param": "minuend", "position": 0, "reason": "missing required param"});
    assert_invalid_params(&ask("subtract", Some("[]")).await, first.clone());
    assert_invalid_params(&ask("subtract", Some("{}")).await, first.clone());
    assert_invalid_params(&ask("subtract", None).await, first);
    assert_invalid_params(
        &ask("greet", Some(r#"{"greeting": "Hi"}"#)).await,
        json!({"param": "name", "position": 0, "reason": "missing required param"}),
    );
}

#[tokio::test]
async fn too_many_positional_params_are_refused() {
    assert_invalid_params(
        &ask("subtract", Some("[42, 23, 1]")).await,
        json!({"position": 2, "reason": "too many params: `subtract` takes 2, got 3"}),
    );
    assert_invalid_params(
        &ask("greet", Some(r#"["Ada", "Hi", "!", "?", "¿"]"#)).await,
        json!({"position": 3, "reason": "too many params: `greet` takes 3, got 5"}),
    );
    assert_invalid_params(
        &ask("subtract", Some(r#"[42, 23, [1, {"a": [2]}], "x"]"#)).await,
        json!({"position": 2, "reason": "too many params: `subtract` takes 2, got 4"}),
    );
}

#[tokio::test]
async fn an_unknown_named_param_is_refused() {
    assert_invalid_params(
        &ask(
            "subtract",
            Some(r#"{"minuend": 42, "subtrahend": 23, "extra": 1}"#),
        )
        .await,
        json!({
            "param": "extra",
            "reason": "unknown param; expected one of `minuend`, `subtrahend`",
        }),
    );
    // Names are case-sensitive.
    assert_invalid_params(
        &ask("subtract", Some(r#"{"Minuend": 42, "subtrahend": 23}"#)).await,
        json!({
            "param": "Minuend",
            "reason": "unknown param; expected one of `minuend`, `subtrahend`",
        }),
    );
}

#[tokio::test]
async fn a_duplicate_named_param_is_refused() {
    assert_invalid_params(
        &ask(
            "subtract",
            Some(r#"{"minuend": 42, "subtrahend": 23, "minuend": 1}"#),
        )
        .await,
        json!({"param": "minuend", "position": 0, "reason": "duplicate param"}),
    );
    // Out of order too.
    assert_invalid_params(
        &ask(
            "subtract",
            Some(r#"{"subtrahend": 23, "minuend": 42, "subtrahend": 1}"#),
        )
        .await,
        json!({"param": "subtrahend", "position": 1, "reason": "duplicate param"}),
    );
    // Even when the first value was `null` for an optional param.
    assert_invalid_params(
        &ask(
            "greet",
            Some(r#"{"name": "Ada", "greeting": null, "greeting": "Hi"}"#),
        )
        .await,
        json!({"param": "greeting", "position": 1, "reason": "duplicate param"}),
    );
}

#[tokio::test]
async fn allow_unknown_params_on_a_method_ignores_unknown_named_params() {
    let params = r#"{"minuend": 42, "extra": {"nested": [1, 2]}, "subtrahend": 23}"#;
    assert_eq!(result_of(&ask("lenient_subtract", Some(params)).await), 19);
    // The method is lenient about names only: missing, duplicate and extra
    // positional params are still refused.
    assert_eq!(
        code_of(&ask("lenient_subtract", Some(r#"{"minuend": 42, "extra": 1}"#)).await),
        -32602
    );
    assert_eq!(
        code_of(&ask("lenient_subtract", Some("[42, 23, 1]")).await),
        -32602
    );
    // Its neighbours in the same trait stay strict.
    assert_eq!(code_of(&ask("subtract", Some(params)).await), -32602);
}

#[tokio::test]
async fn allow_unknown_params_on_a_trait_ignores_unknown_named_params_in_every_method() {
    assert_eq!(
        result_of(
            &ask(
                "divide",
                Some(r#"{"dividend": 42, "divisor": 2, "round": "down"}"#)
            )
            .await
        ),
        21
    );
    assert_eq!(
        result_of(&ask("status", Some(r#"{"verbose": true}"#)).await),
        "ok"
    );
    assert_invalid_params(
        &ask("divide", Some(r#"{"dividend": 42, "round": "down"}"#)).await,
        json!({"param": "divisor", "position": 1, "reason": "missing required param"}),
    );
}

#[tokio::test]
async fn params_that_are_neither_an_array_nor_an_object_make_an_invalid_request() {
    for params in ["3", "null", r#""a""#, "true"] {
        let reply = ask("subtract", Some(params)).await;
        assert_eq!(code_of(&reply), -32600, "params {params}: {reply}");
    }
}

/// Keywords as names, written as raw identifiers: LSP's `window/logMessage`
/// has a `type` param, and a method may be named after a keyword too.
#[rpc(param_style = "named")]
pub trait Keywords {
    /// Named after its fn: `match`.
    #[method]
    async fn r#match(&self, r#type: u8, message: String) -> RpcResult<String>;
}

struct KeywordsImpl;

impl Keywords for KeywordsImpl {
    async fn r#match(&self, r#type: u8, message: String) -> RpcResult<String> {
        Ok(format!("{type}: {message}", type = r#type))
    }
}

#[tokio::test]
async fn raw_identifiers_name_params_and_methods_without_their_prefix() {
    let router = Router::new(KeywordsImpl.into_service());
    let info = &KeywordsService::<()>::INFO.methods()[0];
    assert_eq!(info.name(), "match");
    assert_eq!(info.param_list()[0].name(), "type");

    let request = r#"{"jsonrpc":"2.0","method":"match","params":{"type":3,"message":"hi"},"id":1}"#;
    assert_eq!(result_of(&call(&router, request).await), "3: hi");
    let request = r#"{"jsonrpc":"2.0","method":"match","params":{"message":"hi"},"id":1}"#;
    assert_eq!(
        error_of(&call(&router, request).await)["data"],
        json!({"param": "type", "position": 0, "reason": "missing required param"})
    );

    // The generated client sends the names without the prefix too.
    let client = KeywordsClient::new(typed_rpc::client::InProcess::new(router));
    assert_eq!(client.r#match(3, "hi".into()).await.unwrap(), "3: hi");
}
