//! The 2026-07-28 generation's way of asking the client for input: a
//! result that asks ([`InputRequiredResult`]), answered on a retry of the
//! request that carries the answers ([`InputResponses`]) and the state
//! the server asked to see again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Meta, ResultFields, ResultType};

/// A request of the server to the client, carried in a result: `method` is
/// `sampling/createMessage`, `elicitation/create` or `roots/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRequest {
    /// The method.
    pub method: String,
    /// Its params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

/// The input a server asks for, by keys of its choosing.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers, by the keys of the requests they answer: each the
/// result the request would have had (`CreateMessageResult`,
/// `ElicitResult`, `ListRootsResult`).
pub type InputResponses = BTreeMap<String, Value>;

/// A result asking for input before the request can complete: the client
/// gathers the answers and retries the request with them, and with
/// `requestState` echoed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// What to ask the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// State the server wants back, opaque to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `resultType: "input_required"`.
    #[serde(flatten)]
    pub fields: ResultFields,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// A result asking for `requests`, with `state` to be sent back.
    pub fn new(requests: InputRequests, state: Option<String>) -> Self {
        InputRequiredResult {
            input_requests: (!requests.is_empty()).then_some(requests),
            request_state: state,
            fields: ResultFields {
                result_type: Some(ResultType::InputRequired),
                ..ResultFields::default()
            },
            meta: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_required_result_says_so() {
        let mut requests = InputRequests::new();
        requests.insert(
            "input-1".into(),
            InputRequest {
                method: "roots/list".into(),
                params: None,
            },
        );
        let result = InputRequiredResult::new(requests, Some("s".into()));
        assert_eq!(
            serde_json::to_string(&result).unwrap(),
            r#"{"inputRequests":{"input-1":{"method":"roots/list"}},"requestState":"s","resultType":"input_required"}"#
        );
    }
}
