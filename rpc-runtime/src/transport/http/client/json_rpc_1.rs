//! JSON-RPC 1.0 on the HTTP client (see
//! [`HttpClientBuilder::jsonrpc_1_0`](super::HttpClientBuilder::jsonrpc_1_0)):
//! the request text a 1.0 server reads, and its reply turned into the 2.0
//! text that the rest of the client reads.

use std::fmt::Write;

use crate::Response;
use crate::client::OutgoingRequest;

/// The request as a 1.0 server reads it: `"jsonrpc": "1.0"` (the spelling
/// of Bitcoin Core's own client, and ignored by 1.0 servers that know no
/// such member), an `id` that is `null` for a notification, and `params`
/// always present, `[]` when there are none.
pub(super) fn request_text(request: &OutgoingRequest<'_>, id: Option<u64>) -> String {
    let mut text = String::from(r#"{"jsonrpc":"1.0","id":"#);
    match id {
        // Writing to a `String` cannot fail.
        Some(id) => drop(write!(text, "{id}")),
        None => text.push_str("null"),
    }
    text.push_str(r#","method":"#);
    // A `str` always serializes.
    text.push_str(&serde_json::to_string(request.method()).unwrap_or_default());
    text.push_str(r#","params":"#);
    text.push_str(request.params().map_or("[]", |params| params.as_json()));
    text.push('}');
    text
}

/// A reply of either version, as the 2.0 response text it stands for.
pub(super) fn reply_as_2_0(text: &str) -> serde_json::Result<String> {
    Response::from_any_version(text).map(|response| response.to_2_0_text())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Params;

    #[test]
    fn requests_carry_version_1_0_an_id_and_params() {
        let params = Params::from_value(&(1, "a")).unwrap();
        let request = OutgoingRequest::new("getblock\"x", Some(&params));
        assert_eq!(
            request_text(&request, Some(7)),
            r#"{"jsonrpc":"1.0","id":7,"method":"getblock\"x","params":[1,"a"]}"#
        );
        let notification = OutgoingRequest::new("ping", None);
        assert_eq!(
            request_text(&notification, None),
            r#"{"jsonrpc":"1.0","id":null,"method":"ping","params":[]}"#
        );
    }

    #[test]
    fn replies_of_1_0_read_as_2_0() {
        assert_eq!(
            reply_as_2_0(r#"{"result": [1, 2], "error": null, "id": 7}"#).unwrap(),
            r#"{"jsonrpc":"2.0","result":[1, 2],"id":7}"#
        );
        assert_eq!(
            reply_as_2_0(r#"{"result":null,"error":{"code":-1,"message":"no"},"id":"7"}"#).unwrap(),
            r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"no"},"id":"7"}"#
        );
        assert_eq!(
            reply_as_2_0(r#"{"jsonrpc":"2.0","result":true,"id":1}"#).unwrap(),
            r#"{"jsonrpc":"2.0","result":true,"id":1}"#
        );
        assert!(reply_as_2_0(r#"{"result":1,"error":{"code":-1,"message":"no"},"id":1}"#).is_err());
        assert!(reply_as_2_0(r#"{"result":1,"id":1} trailing"#).is_err());
    }
}
