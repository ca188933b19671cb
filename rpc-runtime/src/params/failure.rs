//! The `-32602` error objects of params that did not decode: which param,
//! at which position, and serde's reason without its position in the text.

use super::missing::NO_VALUE;
use crate::{ErrorObject, MethodInfo};

/// The reason absent `params` did not decode: none were sent, and what
/// the type missed, when it says (a required field of a struct).
#[cold]
pub(super) fn absent_reason(err: &serde_json::Error) -> String {
    let reason = serde_reason(err);
    match reason == NO_VALUE {
        true => reason,
        false => format!("{NO_VALUE}: {reason}"),
    }
}

/// `-32602` for param `index` of `method`, naming it and its position.
#[cold]
pub(super) fn param_error(method: &'static MethodInfo, index: usize, reason: &str) -> ErrorObject {
    let name = method.param_list().get(index).map(|p| p.name());
    invalid_params(name, Some(index), None, reason)
}

#[cold]
pub(super) fn invalid_params(
    param: Option<&str>,
    position: Option<usize>,
    path: Option<&str>,
    reason: &str,
) -> ErrorObject {
    #[derive(serde::Serialize)]
    struct Data<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        param: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        position: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<&'a str>,
        reason: &'a str,
    }
    ErrorObject::invalid_params().with_data(&Data {
        param,
        position,
        path,
        reason,
    })
}

/// serde_json's message without its " at line L column C" suffix, which points
/// into the params text rather than anything the caller wrote.
#[cold]
pub(super) fn serde_reason(err: &serde_json::Error) -> String {
    use std::fmt::Write as _;
    use std::io::Write as _;

    let mut message = String::with_capacity(96);
    let _ = write!(message, "{err}");
    // The suffix is built on the stack and cut off in place: no allocation
    // beyond the message itself.
    let mut suffix = [0u8; 64];
    let mut cursor = &mut suffix[..];
    if write!(cursor, " at line {} column {}", err.line(), err.column()).is_ok() {
        let len = 64 - cursor.len();
        if message.as_bytes().ends_with(&suffix[..len]) {
            message.truncate(message.len() - len);
        }
    }
    message
}
