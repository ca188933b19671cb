//! `-32602` for a value deep inside a param: `error.data.path` is the JSON
//! Pointer of the failing value inside `params`, for named and positional
//! params and for a `#[params]` struct; a flat param keeps its data as before.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typed_rpc::{Router, RpcResult, rpc};

/// An A2A-style message: parts in an array, each a struct.
#[derive(Debug, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub parts: Vec<Part>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    pub text: String,
}

/// The params object of `message/send`, bound whole with `#[params]`.
#[derive(Debug, Serialize, Deserialize)]
pub struct SendParams {
    pub message: Message,
    #[serde(default)]
    pub metadata: Option<BTreeMap<String, u32>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Shape {
    Circle { radius: f64 },
}

#[rpc]
pub trait Deep {
    #[method(name = "send")]
    async fn send(&self, message: Message, copies: u32) -> RpcResult<usize>;

    #[method(name = "message/send")]
    async fn send_whole(&self, #[params] params: SendParams) -> RpcResult<usize>;

    #[method(name = "tally")]
    async fn tally(&self, counts: BTreeMap<String, Vec<u32>>) -> RpcResult<usize>;

    #[method(name = "area")]
    async fn area(&self, shape: Shape) -> RpcResult<f64>;

    #[method(name = "rows")]
    async fn rows(&self, #[params] rows: Vec<Vec<u32>>) -> RpcResult<usize>;
}

struct DeepImpl;

impl Deep for DeepImpl {
    async fn send(&self, message: Message, copies: u32) -> RpcResult<usize> {
        Ok(message.parts.len() * copies as usize)
    }

    async fn send_whole(&self, params: SendParams) -> RpcResult<usize> {
        Ok(params.message.parts.len())
    }

    async fn tally(&self, counts: BTreeMap<String, Vec<u32>>) -> RpcResult<usize> {
        Ok(counts.len())
    }

    async fn area(&self, shape: Shape) -> RpcResult<f64> {
        let Shape::Circle { radius } = shape;
        Ok(radius * radius * 3.0)
    }

    async fn rows(&self, rows: Vec<Vec<u32>>) -> RpcResult<usize> {
        Ok(rows.len())
    }
}

/// The `error.data` of the reply to `method` with `params` (raw JSON),
/// which must be `-32602`.
async fn invalid_params_data(method: &str, params: &str) -> Value {
    let router = Router::new(DeepImpl.into_service());
    let request = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":1}}"#);
    let reply = router.handle(request.as_bytes()).await.expect("a reply");
    let reply: Value = serde_json::from_str(&reply).expect("JSON");
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    reply["error"]["data"].clone()
}

#[tokio::test]
async fn a_named_param_path_starts_with_its_name() {
    assert_eq!(
        invalid_params_data(
            "send",
            r#"{"message": {"role": "user", "parts": [{"text": "hi"}, {"kind": "text"}]}, "copies": 1}"#
        )
        .await,
        json!({"param": "message", "position": 0, "path": "/message/parts/1",
               "reason": "missing field `text`"})
    );
    assert_eq!(
        invalid_params_data(
            "send",
            r#"{"copies": 1, "message": {"role": "user", "parts": [{"text": 7}]}}"#
        )
        .await,
        json!({"param": "message", "position": 0, "path": "/message/parts/0/text",
               "reason": "invalid type: integer `7`, expected a string"})
    );
}

#[tokio::test]
async fn a_positional_param_path_starts_with_its_index() {
    assert_eq!(
        invalid_params_data(
            "send",
            r#"[{"role": "user", "parts": [{"text": false}]}, 1]"#
        )
        .await,
        json!({"param": "message", "position": 0, "path": "/0/parts/0/text",
               "reason": "invalid type: boolean `false`, expected a string"})
    );
    assert_eq!(
        invalid_params_data("send", r#"[{"role": "user", "parts": {}}, 1]"#).await,
        json!({"param": "message", "position": 0, "path": "/0/parts",
               "reason": "invalid type: map, expected a sequence"})
    );
}

#[tokio::test]
async fn map_keys_are_escaped_as_rfc_6901_says() {
    assert_eq!(
        invalid_params_data("tally", r#"{"counts": {"a/b~c": [1, -2]}}"#).await,
        json!({"param": "counts", "position": 0, "path": "/counts/a~1b~0c/1",
               "reason": "invalid value: integer `-2`, expected u32"})
    );
}

#[tokio::test]
async fn a_params_struct_path_starts_at_its_fields() {
    assert_eq!(
        invalid_params_data(
            "message/send",
            r#"{"message": {"role": "agent", "parts": [{"text": "a"}, {"text": null}]}}"#
        )
        .await,
        json!({"param": "params", "path": "/message/parts/1/text",
               "reason": "invalid type: null, expected a string"})
    );
    // A top-level field of the struct is below the param, which is the
    // whole `params`: the path names it.
    assert_eq!(
        invalid_params_data("message/send", r#"{"message": 5}"#).await,
        json!({"param": "params", "path": "/message",
               "reason": "invalid type: integer `5`, expected struct Message"})
    );
    assert_eq!(
        invalid_params_data(
            "message/send",
            r#"{"message": {"role": "user", "parts": []}, "metadata": {"x": "y"}}"#
        )
        .await,
        json!({"param": "params", "path": "/metadata/x",
               "reason": "invalid type: string \"y\", expected u32"})
    );
}

#[tokio::test]
async fn an_externally_tagged_variant_is_a_step_of_the_path() {
    assert_eq!(
        invalid_params_data("area", r#"[{"Circle": {"radius": "big"}}]"#).await,
        json!({"param": "shape", "position": 0, "path": "/0/Circle/radius",
               "reason": "invalid type: string \"big\", expected f64"})
    );
}

#[tokio::test]
async fn a_failure_of_the_param_itself_has_no_path() {
    // `param` and `position` already say where: the data is as it always was.
    assert_eq!(
        invalid_params_data("send", r#"[{"role": "user", "parts": []}, "one"]"#).await,
        json!({"param": "copies", "position": 1,
               "reason": "invalid type: string \"one\", expected u32"})
    );
    assert_eq!(
        invalid_params_data("send", r#"{"message": 5, "copies": 1}"#).await,
        json!({"param": "message", "position": 0,
               "reason": "invalid type: integer `5`, expected struct Message"})
    );
    // A missing field of the param's own object is reported at the object.
    assert_eq!(
        invalid_params_data("send", r#"[{"parts": []}, 1]"#).await,
        json!({"param": "message", "position": 0, "reason": "missing field `role`"})
    );
    assert_eq!(
        invalid_params_data("message/send", r#"{"metadata": {}}"#).await,
        json!({"param": "params", "reason": "missing field `message`"})
    );
}

#[tokio::test]
async fn a_params_array_path_starts_below_its_elements() {
    // An element of a `#[params]` array is a positional param in all but
    // name: as for one, its own failure has no path...
    assert_eq!(
        invalid_params_data("rows", r#"[[1], "two"]"#).await,
        json!({"param": "rows", "reason": "invalid type: string \"two\", expected a sequence"})
    );
    // ...and a value inside it has one.
    assert_eq!(
        invalid_params_data("rows", r#"[[1], [2, "three"]]"#).await,
        json!({"param": "rows", "path": "/1/1",
               "reason": "invalid type: string \"three\", expected u32"})
    );
}
