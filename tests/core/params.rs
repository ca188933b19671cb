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

/// Asserts `method` called with `params` is refused `-32602` with exactly `data`.
async fn refused(method: &str, params: Option<&str>, data: Value) {
    let reply = ask(method, params).await;
    let case = format!("{method} {params:?}: {reply}");
    assert_eq!(code_of(&reply), -32602, "{case}");
    assert_eq!(error_of(&reply)["data"], data, "{case}");
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

/// Asserts `greet` called with each of `cases`' params received what the
/// case says.
async fn greets(cases: &[(&str, Value)]) {
    for (params, received) in cases {
        let reply = ask("greet", Some(params)).await;
        assert_eq!(result_of(&reply), received, "{params}");
    }
}

#[tokio::test]
async fn trailing_options_may_be_left_out_of_positional_params() {
    let cases = [
        (r#"["Ada"]"#, json!(["Ada", null, null])),
        (r#"["Ada", "Hi"]"#, json!(["Ada", "Hi", null])),
        (r#"["Ada", null, "!"]"#, json!(["Ada", null, "!"])),
        (r#"["Ada", "Hi", "!"]"#, json!(["Ada", "Hi", "!"])),
    ];
    greets(&cases).await;
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
    greets(&cases).await;
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
    refused(
        "tools/call",
        Some(r#"{"arguments": {}}"#),
        json!({"param": "call", "reason": "missing field `name`"}),
    )
    .await;
    refused(
        "tools/call",
        None,
        json!({"param": "call", "reason": "missing params: missing field `name`"}),
    )
    .await;
}

#[tokio::test]
async fn a_params_vec_takes_the_whole_params_array() {
    assert_eq!(result_of(&ask("sum", Some("[1, 2, 4]")).await), 7);
    assert_eq!(result_of(&ask("sum", Some("[]")).await), 0);
    let invalid = |reason| json!({"param": "values", "reason": format!("invalid type: {reason}")});
    all_refused(&[
        (
            "sum",
            r#"[1, "two"]"#,
            invalid("string \"two\", expected i64"),
        ),
        (
            "sum",
            r#"{"values": [1]}"#,
            invalid("map, expected a sequence"),
        ),
    ])
    .await;
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
    let too_many = json!({"position": 0, "reason": "too many params: `ping` takes 0, got 1"});
    let unknown = json!({"param": "verbose", "reason": "unknown param: `ping` takes no params"});
    all_refused(&[
        ("ping", "[1]", too_many),
        ("ping", r#"{"verbose": true}"#, unknown),
    ])
    .await;
}

#[tokio::test]
async fn a_wrong_type_names_the_param_its_position_and_serdes_reason() {
    let wrong = |param, position, reason| {
        let reason = format!("invalid type: {reason}");
        json!({"param": param, "position": position, "reason": reason})
    };
    let a_string = wrong("subtrahend", 1, "string \"a\", expected i64");
    all_refused(&[
        ("subtract", r#"[42, "a"]"#, a_string.clone()),
        (
            "subtract",
            r#"{"minuend": 42, "subtrahend": "a"}"#,
            a_string,
        ),
        // Named params report the param that was wrong, wherever it stands in the object.
        (
            "subtract",
            r#"{"subtrahend": 23, "minuend": 4.5}"#,
            wrong("minuend", 0, "floating point `4.5`, expected i64"),
        ),
        // `null` is no value for a required param.
        (
            "subtract",
            "[null, 23]",
            wrong("minuend", 0, "null, expected i64"),
        ),
        // An optional param of the wrong type is still an error, not `None`.
        (
            "greet",
            r#"["Ada", 5]"#,
            wrong("greeting", 1, "integer `5`, expected a string"),
        ),
    ])
    .await;
}

#[tokio::test]
async fn a_missing_required_param_is_named() {
    let data = json!({"param": "subtrahend", "position": 1, "reason": "missing required param"});
    refused("subtract", Some("[42]"), data.clone()).await;
    refused("subtract", Some(r#"{"minuend": 42}"#), data).await;
    let first = json!({"param": "minuend", "position": 0, "reason": "missing required param"});
    refused("subtract", Some("[]"), first.clone()).await;
    refused("subtract", Some("{}"), first.clone()).await;
    refused("subtract", None, first).await;
    refused(
        "greet",
        Some(r#"{"greeting": "Hi"}"#),
        json!({"param": "name", "position": 0, "reason": "missing required param"}),
    )
    .await;
}

/// Asserts each of `cases` (a method, its params, what `data` says) is refused.
async fn all_refused(cases: &[(&str, &str, Value)]) {
    for (method, params, data) in cases {
        refused(method, Some(params), data.clone()).await;
    }
}

#[tokio::test]
async fn too_many_positional_params_are_refused() {
    let too_many = |position, method, takes, got| {
        let reason = format!("too many params: `{method}` takes {takes}, got {got}");
        json!({"position": position, "reason": reason})
    };
    all_refused(&[
        ("subtract", "[42, 23, 1]", too_many(2, "subtract", 2, 3)),
        (
            "greet",
            r#"["Ada", "Hi", "!", "?", "¿"]"#,
            too_many(3, "greet", 3, 5),
        ),
        (
            "subtract",
            r#"[42, 23, [1, {"a": [2]}], "x"]"#,
            too_many(2, "subtract", 2, 4),
        ),
    ])
    .await;
}

#[tokio::test]
async fn an_unknown_named_param_is_refused() {
    let unknown = |param| {
        let reason = "unknown param; expected one of `minuend`, `subtrahend`";
        json!({"param": param, "reason": reason})
    };
    all_refused(&[
        (
            "subtract",
            r#"{"minuend": 42, "subtrahend": 23, "extra": 1}"#,
            unknown("extra"),
        ),
        // Names are case-sensitive.
        (
            "subtract",
            r#"{"Minuend": 42, "subtrahend": 23}"#,
            unknown("Minuend"),
        ),
    ])
    .await;
}

#[tokio::test]
async fn a_duplicate_named_param_is_refused() {
    let duplicate = |param, position| json!({"param": param, "position": position, "reason": "duplicate param"});
    all_refused(&[
        (
            "subtract",
            r#"{"minuend": 42, "subtrahend": 23, "minuend": 1}"#,
            duplicate("minuend", 0),
        ),
        // Out of order too.
        (
            "subtract",
            r#"{"subtrahend": 23, "minuend": 42, "subtrahend": 1}"#,
            duplicate("subtrahend", 1),
        ),
        // Even when the first value was `null` for an optional param.
        (
            "greet",
            r#"{"name": "Ada", "greeting": null, "greeting": "Hi"}"#,
            duplicate("greeting", 1),
        ),
    ])
    .await;
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
    refused(
        "divide",
        Some(r#"{"dividend": 42, "round": "down"}"#),
        json!({"param": "divisor", "position": 1, "reason": "missing required param"}),
    )
    .await;
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
